package streamparse

import (
	"encoding/json"
)

// claudeLargeLine is the size from which lines take the single-pass scanner
// path instead of encoding/json's validate-then-decode.
const claudeLargeLine = 16 << 10

// claudeDecodeLarge fills l from a large line: the bulky members stay raw
// sub-slices and the rest is decoded with encoding/json.
func claudeDecodeLarge(line []byte, l *claudeLine) bool {
	small := make([]byte, 0, 1024)
	small = append(small, '{')
	end := -1
	ok := jsonObject(line, func(k, v []byte) bool {
		switch string(k) {
		case `"message"`:
			l.Message = v
		case `"tool_use_result"`:
			l.ToolUseResult = v
		case `"event"`:
			l.Event = v
		default:
			if len(small) > 1 {
				small = append(small, ',')
			}
			small = append(append(append(small, k...), ':'), v...)
		}
		return true
	}, &end)
	if !ok || jsonWS(line, end) != len(line) {
		return false
	}
	return json.Unmarshal(append(small, '}'), l) == nil
}

// claudeDecodeLargeMessage is decodeClaudeMessage for large messages.
func claudeDecodeLargeMessage(raw []byte) (claudeMessage, []claudeBlockJSON, bool) {
	var m claudeMessage
	end := -1
	if !jsonObject(raw, func(k, v []byte) bool {
		switch string(k) {
		case `"id"`:
			m.ID, _ = jsonString(v)
		case `"content"`:
			m.Content = v
		}
		return true
	}, &end) {
		return m, nil, false
	}
	if s, ok := jsonString(m.Content); ok {
		return m, []claudeBlockJSON{{Type: "text", Text: s}}, true
	}
	var blocks []claudeBlockJSON
	if len(m.Content) == 0 {
		return m, nil, true
	}
	ok := jsonArray(m.Content, func(v []byte) bool {
		blocks = append(blocks, claudeLargeBlock(v))
		return true
	}, &end)
	return m, blocks, ok
}

func claudeLargeBlock(v []byte) claudeBlockJSON {
	var b claudeBlockJSON
	if len(v) < claudeLargeLine {
		_ = json.Unmarshal(v, &b)
		return b
	}
	small := []byte{'{'}
	end := -1
	jsonObject(v, func(k, val []byte) bool {
		switch string(k) {
		case `"content"`:
			b.Content = val
		case `"input"`:
			b.Input = val
		case `"text"`:
			b.Text, _ = jsonString(val)
		case `"thinking"`:
			b.Thinking, _ = jsonString(val)
		default:
			if len(small) > 1 {
				small = append(small, ',')
			}
			small = append(append(append(small, k...), ':'), val...)
		}
		return true
	}, &end)
	_ = json.Unmarshal(append(small, '}'), &b)
	return b
}
