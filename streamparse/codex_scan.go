package streamparse

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/hubdev/hub/adapters"
)

// The codex decoders pick members with the shared scanner and decode only
// clean records this way; anything where encoding/json semantics could
// differ (escaped, non-ASCII or case-folded keys, duplicate members, an
// unexpected type) is left to the encoding/json path, so both agree.

// codexFields sets vals[i] to the raw value of member keys[i] of the object
// b (nil when absent). It reports false when b is not exactly one valid
// object or when a member needs encoding/json's key matching.
func codexFields(b []byte, keys []string, vals [][]byte) bool {
	o := codexObj{keys: keys, vals: vals}
	end := o.scan(b, jsonWS(b, 0))
	return end >= 0 && jsonWS(b, end) == len(b)
}

// codexValidFields is codexFields for b already validated as part of its
// line: it skips values without checking the grammar again.
func codexValidFields(b []byte, keys []string, vals [][]byte) bool {
	o := codexObj{keys: keys, vals: vals, valid: true}
	end := o.scan(b, jsonWS(b, 0))
	return end >= 0 && jsonWS(b, end) == len(b)
}

// codexObj picks members of one object. When sub is set and member subIdx
// is an object, sub picks its members in the same pass (sub.found).
type codexObj struct {
	keys   []string
	vals   [][]byte
	sub    *codexObj
	subIdx int
	found  bool
	valid  bool // b is known to be valid JSON
}

// scan reads the object at b[i] and returns the index past it, or -1.
func (o *codexObj) scan(b []byte, i int) int {
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	o.found = true
	i = jsonWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		k := o.skip(b, i)
		if k < 0 {
			return -1
		}
		idx, ok := codexKey(b[i+1:k-1], o.keys, o.vals)
		if !ok {
			return -1
		}
		i = jsonWS(b, k)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		vs := jsonWS(b, i+1)
		var ve int
		if o.sub != nil && idx == o.subIdx && vs < len(b) && b[vs] == '{' {
			ve = o.sub.scan(b, vs)
		} else {
			ve = o.skip(b, vs)
		}
		if ve < 0 {
			return -1
		}
		if idx >= 0 {
			o.vals[idx] = b[vs:ve]
		}
		i = jsonWS(b, ve)
		if i >= len(b) {
			return -1
		}
		if b[i] == '}' {
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = jsonWS(b, i+1)
	}
}

// skip returns the index past the value at b[i] (-1 if invalid).
func (o *codexObj) skip(b []byte, i int) int {
	if !o.valid {
		return jsonSkip(b, i)
	}
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return codexStringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				if i = codexStringEnd(b, i) - 1; i < 0 {
					return -1
				}
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// codexStringEnd returns the index past the valid string literal at b[i].
func codexStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
	}
	return -1
}

// codexKey returns the index of key in keys (-1 for an ignored member); ok
// is false for a duplicate, escaped or non-ASCII key, or one that only
// matches case-insensitively.
func codexKey(key []byte, keys []string, vals [][]byte) (int, bool) {
	for i, want := range keys {
		if string(key) == want {
			return i, vals[i] == nil
		}
	}
	for _, c := range key {
		if c == '\\' || c >= utf8.RuneSelf {
			return -1, false
		}
	}
	for _, want := range keys {
		if len(want) == len(key) && bytes.EqualFold(key, []byte(want)) {
			return -1, false
		}
	}
	return -1, true
}

// codexStr decodes a string member as encoding/json would into a string
// field: absent and null give "", other types ok=false. Invalid UTF-8
// (replaced per byte by encoding/json) is left to encoding/json.
func codexStr(v []byte) (string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return "", true
	}
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if k, ok := codexKnown[string(inner)]; ok {
		return k, true
	}
	if !utf8.Valid(inner) {
		var s string
		return s, json.Unmarshal(v, &s) == nil
	}
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	return jsonUnquote(v), true
}

// codexKnown holds the frequent short strings (methods, record and item
// types, statuses) so decoding them does not allocate. All are plain ASCII
// without escapes, so the result equals the decoded string.
var codexKnown = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"item/started", "item/completed", "item/agentMessage/delta", "thread/status/changed",
		"thread/tokenUsage/updated", "account/rateLimits/updated", "turn/started", "turn/completed",
		"thread/started", "warning", "configWarning", "remoteControl/status/changed", "turn/diff/updated",
		"item/reasoning/summaryTextDelta", "item/reasoning/textDelta", "item/reasoning/summaryPartAdded",
		"item/commandExecution/outputDelta", "item/fileChange/patchUpdated", "serverRequest/resolved",
		"turn/plan/updated", "error",
		"agentMessage", "userMessage", "reasoning", "commandExecution", "fileChange", "mcpToolCall", "webSearch",
		"inProgress", "completed", "failed", "declined", "interrupted",
		"thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated", "item.completed",
		"agent_message", "command_execution", "file_change", "mcp_tool_call", "web_search", "todo_list", "in_progress",
		// claude
		"system", "stream_event", "assistant", "user", "result", "control_request", "control_response",
		"init", "status", "success", "message_start", "message_delta", "message_stop", "content_block_start",
		"content_block_delta", "content_block_stop", "text_delta", "input_json_delta", "thinking_delta",
		"signature_delta", "text", "thinking", "tool_use", "tool_result", "end_turn",
	} {
		m[s] = s
	}
	return m
}()

// codexStrPtr is codexStr for a *string field.
func codexStrPtr(v []byte) (*string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return nil, true
	}
	s, ok := codexStr(v)
	return &s, ok
}

// codexInt decodes an integer member like encoding/json into an int64.
func codexInt(v []byte) (int64, bool) {
	if len(v) == 0 || string(v) == "null" {
		return 0, true
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// codexIntPtr is codexInt for a *int field.
func codexIntPtr(v []byte) (*int, bool) {
	if len(v) == 0 || string(v) == "null" {
		return nil, true
	}
	n, ok := codexInt(v)
	i := int(n)
	return &i, ok
}

// codexIsObj reports whether v is an object (not absent, not null).
func codexIsObj(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// codexRawValid is codexRaw for a line the scanner already validated.
func codexRawValid(line []byte, source string) adapters.Event {
	return adapters.Event{Type: adapters.EventRaw, Raw: append(json.RawMessage(nil), line...), Source: source}
}
