package streamparse

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hubdev/hub/adapters"
)

// A small validating JSON scanner shared by the decoders for large lines:
// encoding/json validates and then decodes (and again for every nested
// RawMessage), which caps throughput on multi-MB tool results. The scanner
// walks a value once with a plain byte loop and hands back sub-slices.

// jsonSkip returns the index just past the JSON value starting at b[i]
// (after leading whitespace), or -1 if it is not valid JSON.
func jsonSkip(b []byte, i int) int {
	i = jsonWS(b, i)
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return jsonSkipString(b, i)
	case c == '{':
		end := -1
		ok := jsonObject(b[i:], func(_, _ []byte) bool { return true }, &end)
		if !ok {
			return -1
		}
		return i + end
	case c == '[':
		end := -1
		if !jsonArray(b[i:], func([]byte) bool { return true }, &end) {
			return -1
		}
		return i + end
	case c == 't':
		return jsonLit(b, i, "true")
	case c == 'f':
		return jsonLit(b, i, "false")
	case c == 'n':
		return jsonLit(b, i, "null")
	default:
		return jsonSkipNumber(b, i)
	}
}

func jsonWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

func jsonLit(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func jsonSkipString(b []byte, i int) int {
	for i++; ; i++ {
		i = jsonPlainRun(b, i)
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !jsonHex4(b[i+1:i+5]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		}
	}
}

const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
)

// jsonPlainRun skips, eight bytes at a time, string bytes that need no
// attention (not '"', '\\' or a control byte) from b[i] and returns the
// index of the first such byte (len(b) if none); the byte loop in
// jsonSkipString was the decoders' top CPU cost on long strings. The lowest
// flagged byte of a word is exact (borrows only cause false flags above a
// real one), so escape-dense strings need no byte-by-byte rescan.
func jsonPlainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (swarOnes * '"')
		s := x ^ (swarOnes * '\\')
		if m := ((q-swarOnes)&^q | (s-swarOnes)&^s | (x-swarOnes*0x20)&^x) & swarHigh; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	return i
}

func jsonHex4(h []byte) bool {
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func jsonDigits(b []byte, i int) int {
	j := i
	for j < len(b) && '0' <= b[j] && b[j] <= '9' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// jsonSkipNumber follows the JSON number grammar exactly.
func jsonSkipNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if i = jsonDigits(b, i); i < 0 {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = jsonDigits(b, i+1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = jsonDigits(b, i); i < 0 {
			return -1
		}
	}
	return i
}

// jsonObject calls f with each raw key (quotes included) and value of the
// object b starts with; f returning false stops early. end receives the
// index past the object. It reports whether the object is valid JSON.
func jsonObject(b []byte, f func(key, val []byte) bool, end *int) bool {
	i := jsonWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = jsonWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		*end = i + 1
		return true
	}
	for {
		i = jsonWS(b, i)
		if i >= len(b) || b[i] != '"' {
			return false
		}
		k := jsonSkipString(b, i)
		if k < 0 {
			return false
		}
		key := b[i:k]
		i = jsonWS(b, k)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := jsonWS(b, i+1)
		ve := jsonSkip(b, vs)
		if ve < 0 {
			return false
		}
		if !f(key, b[vs:ve]) {
			return true
		}
		i = jsonWS(b, ve)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			*end = i + 1
			return true
		}
		if b[i] != ',' {
			return false
		}
		i++
	}
}

// jsonArray is jsonObject for arrays.
func jsonArray(b []byte, f func(val []byte) bool, end *int) bool {
	i := jsonWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = jsonWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		*end = i + 1
		return true
	}
	for {
		vs := jsonWS(b, i)
		ve := jsonSkip(b, vs)
		if ve < 0 {
			return false
		}
		if !f(b[vs:ve]) {
			return true
		}
		i = jsonWS(b, ve)
		if i >= len(b) {
			return false
		}
		if b[i] == ']' {
			*end = i + 1
			return true
		}
		if b[i] != ',' {
			return false
		}
		i++
	}
}

// jsonUnquote decodes a JSON string literal already checked by
// jsonSkipString (quotes included).
func jsonUnquote(s []byte) string {
	s = s[1 : len(s)-1]
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] != '\\' {
			j++
		}
		buf = append(buf, s[i:j]...)
		if j >= len(s) {
			break
		}
		c := s[j+1]
		i = j + 2
		switch c {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := jsonRune(s[i : i+4])
			i += 4
			if utf16.IsSurrogate(r) && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if r2 := utf16.DecodeRune(r, jsonRune(s[i+2:i+6])); r2 != utf8.RuneError {
					r, i = r2, i+6
				}
			}
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
		default:
			buf = append(buf, c)
		}
	}
	return string(buf)
}

func jsonRune(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c <= '9':
			r |= rune(c - '0')
		case c >= 'a':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// jsonString decodes a raw JSON value that should be a string; ok is false
// for other values. v must come from the scanner or encoding/json (already
// validated), so escape-free valid UTF-8 is taken as is.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if !utf8.Valid(inner) { // encoding/json replaces bad bytes its own way
		var s string
		return s, json.Unmarshal(v, &s) == nil
	}
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	return jsonUnquote(v), true
}

// The helpers below serve the decoders' fast paths. A fast path only accepts
// input whose meaning it reproduces exactly as encoding/json would decode it
// into the slow path's structs; anything else falls back to that path.

// jsonKey returns the index of the raw key in keys (-1 for a member to
// ignore); ok is false when encoding/json could read the member differently:
// a repeated wanted key, an escaped or non-ASCII key, or one that matches a
// wanted key only case-insensitively.
func jsonKey(key []byte, keys []string, vals [][]byte) (int, bool) {
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

// jsonStr decodes a member as encoding/json would into a string field:
// absent and null give "", other types ok=false. Frequent values come back
// as shared strings, saving an allocation per member.
func jsonStr(v []byte) (string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return "", true
	}
	if len(v) >= 2 && v[0] == '"' && len(v)-2 <= jsonKnownMax {
		if k, ok := jsonKnown[string(v[1:len(v)-1])]; ok {
			return k, true
		}
	}
	return jsonString(v)
}

// jsonStrPtr is jsonStr for a *string field.
func jsonStrPtr(v []byte) (*string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return nil, true
	}
	s, ok := jsonStr(v)
	return &s, ok
}

// jsonIsObj reports whether a scanned value is an object (not absent or null).
func jsonIsObj(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// jsonKnown holds the wire formats' frequent enum strings (methods, record
// and item types, kinds, statuses). All are plain ASCII without escapes, so
// the shared string equals the decoded one.
var jsonKnown, jsonKnownMax = func() (map[string]string, int) {
	m, longest := map[string]string{}, 0
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
		// acp, gemini, qoder
		"agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call", "tool_call_update", "plan", "usage_update", "available_commands_update", "session_info_update", "current_mode_update", "image", "resource_link", "resource", "content", "diff", "terminal", "pending", "high", "medium", "low", "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other", "allow_once", "allow_always", "reject_once", "reject_always", "USD", "message", "fatal",
	} {
		m[s] = s
		longest = max(longest, len(s))
	}
	return m, longest
}()

// jsonRawEvent keeps a record the scanner already validated as a raw Event,
// copied so it never aliases the caller's line buffer.
func jsonRawEvent(source string, rec []byte) adapters.Event {
	return adapters.Event{Type: adapters.EventRaw, Source: source, Raw: bytes.Clone(rec)}
}
