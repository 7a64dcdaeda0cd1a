package adapters

import (
	"bytes"
	"encoding/json"
)

// DecodeJSON decodes one line of an agent's JSON stream as a T: a blank
// line is no event, a line that is not JSON a raw event of source invalid,
// and any other what decode makes of its value and the trimmed line.
func DecodeJSON[T any](line []byte, invalid string, decode func(v *T, line []byte) []Event) []Event {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var v T
	if json.Unmarshal(line, &v) != nil {
		return []Event{RawEvent(invalid, line)}
	}
	return decode(&v, line)
}
