package streamparse

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/hubdev/hub/adapters"
)

// The scanner fast path of GeminiDecoder for message, tool_use and
// tool_result lines; it returns ok=false for anything it cannot decode
// exactly like the encoding/json path (rare records, type mismatches).

var geminiKeys = []string{
	"type", "session_id", "model", "role", "content", "tool_name", "tool_id",
	"parameters", "status", "output", "severity", "message", "error", "stats",
}

const (
	geminiKType = iota
	geminiKSession
	geminiKModel
	geminiKRole
	geminiKContent
	geminiKToolName
	geminiKToolID
	geminiKParams
	geminiKStatus
	geminiKOutput
	geminiKSeverity
	geminiKMessage
	geminiKError
	geminiKStats
	geminiKN
)

func (d *GeminiDecoder) decodeFast(line []byte) ([]adapters.Event, bool) {
	var v [geminiKN][]byte
	if !jsonPick(line, geminiKeys, v[:]) {
		return nil, false
	}
	var l geminiLine
	if !geminiErrorFast(v[geminiKError], &l) || !geminiStatsFast(v[geminiKStats], &l) {
		return nil, false
	}
	for i, dst := range []*string{&l.Type, &l.SessionID, &l.Model, &l.Role, &l.Content, &l.ToolName, &l.ToolID, &l.Status, &l.Severity, &l.Message} {
		src := [...]int{geminiKType, geminiKSession, geminiKModel, geminiKRole, geminiKContent, geminiKToolName, geminiKToolID, geminiKStatus, geminiKSeverity, geminiKMessage}[i]
		s, ok := jsonStr(v[src])
		if !ok {
			return nil, false
		}
		*dst = s
	}
	var ok bool
	if l.Output, ok = jsonStrPtr(v[geminiKOutput]); !ok {
		return nil, false
	}
	switch l.Type {
	case "message":
		if l.Role == "user" {
			return nil, true
		}
		return []adapters.Event{{Type: adapters.EventText, Text: l.Content}}, true
	case "tool_use":
		l.Parameters = bytes.Clone(v[geminiKParams])
		return d.toolUse(&l), true
	case "tool_result":
		return d.toolResult(&l), true
	case "init":
		return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: l.SessionID, Model: l.Model}}}, true
	case "result":
		return d.result(&l), true
	}
	return nil, false
}

// geminiParamFast is geminiParam without building a map: the last string
// member wins like in a map, and keys with escapes go the slow way.
func geminiParamFast(params json.RawMessage, keys ...string) (string, bool) {
	if len(params) == 0 || params[0] != '{' {
		return "", false
	}
	found := make([][]byte, len(keys))
	end := -1
	clean := true
	ok := jsonObject(params, func(k, val []byte) bool {
		if bytes.IndexByte(k, '\\') >= 0 {
			clean = false
			return false
		}
		for i, want := range keys {
			if string(k[1:len(k)-1]) == want {
				found[i] = val
			}
		}
		return true
	}, &end)
	if !ok || !clean {
		return "", false
	}
	for _, f := range found {
		if len(f) > 0 && f[0] == '"' {
			if s, _ := jsonString(f); s != "" {
				return s, true
			}
		}
	}
	return "", true
}

func geminiErrorFast(b []byte, l *geminiLine) bool {
	if b == nil || string(b) == "null" {
		return true
	}
	var v [2][]byte
	if !jsonIsObj(b) || !jsonPick(b, []string{"type", "message"}, v[:]) {
		return false
	}
	t, ok1 := jsonStr(v[0])
	m, ok2 := jsonStr(v[1])
	l.Error = &struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}{t, m}
	return ok1 && ok2
}

func geminiStatsFast(b []byte, l *geminiLine) bool {
	if b == nil || string(b) == "null" {
		return true
	}
	var v [3][]byte
	if !jsonIsObj(b) || !jsonPick(b, []string{"input_tokens", "output_tokens", "cached"}, v[:]) {
		return false
	}
	var n [3]int64
	for i, raw := range v {
		if raw == nil || string(raw) == "null" {
			continue
		}
		x, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return false
		}
		n[i] = x
	}
	l.Stats = &struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
		Cached       int64 `json:"cached"`
	}{n[0], n[1], n[2]}
	return true
}
