package jsonrpc

import (
	"bytes"
	"encoding/json"
	"regexp"

	"github.com/rs/zerolog"
)

// Every message in both directions is logged at debug level (HUB_LOG=debug
// or --log-level debug, to --log-file), so an editor session can be
// replayed from the log. Secrets are redacted first: values of members
// whose names say key, token, secret, password or authorization, and the
// values of env and header lists.

var secretName = regexp.MustCompile(`(?i)(api[_-]?key|token|secret|password|passwd|authorization|credential|cookie)`)

// trace logs one message; dir is "in" or "out".
func (c *Conn) trace(dir string, line []byte) {
	if c.opts.Logger.GetLevel() > zerolog.DebugLevel {
		return
	}
	c.opts.Logger.Debug().Str("rpc", dir).RawJSON("msg", redact(bytes.TrimSpace(line))).Msg("jsonrpc")
}

// redact returns line with secret values replaced; a line that is not
// JSON is logged as a string.
func redact(line []byte) []byte {
	var v any
	if json.Unmarshal(line, &v) != nil {
		b, _ := json.Marshal(string(line))
		return b
	}
	v = redactValue("", v)
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`"unloggable message"`)
	}
	return b
}

func redactValue(name string, v any) any {
	switch t := v.(type) {
	case map[string]any:
		envMap := name == "env" || name == "headers" || name == "Env" // {"NAME": "value"}
		for k, x := range t {
			if s, ok := x.(string); ok && (envMap || s != "" && secretName.MatchString(k)) || name == "pair" && k == "value" {
				t[k] = "[redacted]"
			} else {
				t[k] = redactValue(k, x)
			}
		}
	case []any:
		for i, x := range t {
			if _, ok := x.(map[string]any); ok && (name == "env" || name == "headers") {
				t[i] = redactValue("pair", x) // [{"name": "X", "value": "…"}]
			} else {
				t[i] = redactValue(name, x)
			}
		}
	}
	return v
}
