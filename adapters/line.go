package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
)

// DecodeJSON decodes one line of an agent's JSON stream as a T: a blank line is no event,
// a line that is not JSON a raw event of source invalid, any other what decode makes of it.
func DecodeJSON[T any](line []byte, invalid string, decode func(v *T, line []byte) []Event) []Event {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var v T
	if Unmarshal(line, &v) != nil {
		return []Event{RawEvent(invalid, line)}
	}
	return decode(&v, line)
}

// Unmarshal is json.Unmarshal for what an agent sends: a member of an unexpected type is
// left zero and the rest is read, so one odd member never costs a line its text. Data
// that is not JSON, not v's shape as a whole, or rejected by a member's UnmarshalJSON is
// still an error.
func Unmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		return nil
	}
	return err
}
