package adapters

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
)

type LineDecoder interface {
	Decode(line []byte) []Event
}

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

// RawEvent wraps a record hub does not understand, copied off the reader's buffer;
// invalid JSON is kept as a JSON string so the event stays marshalable.
func RawEvent(source string, rec []byte) Event {
	raw := json.RawMessage(bytes.Clone(rec))
	if !json.Valid(raw) {
		raw, _ = json.Marshal(string(rec))
	}
	return Event{Type: EventRaw, Source: source, Raw: raw}
}

// RawOrNil returns a copy of v, or nil for an absent or JSON-null value.
func RawOrNil(v json.RawMessage) json.RawMessage {
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	return bytes.Clone(v)
}

var statusCodes = map[int]ErrorCode{401: CodeAuth, 403: CodeAuth, 429: CodeRateLimit}

// StatusCode is the code a model service's HTTP status stands for.
func StatusCode(status int) ErrorCode { return cmp.Or(statusCodes[status], CodeProvider) }

// RetryError is an agent's notice that it retries a failed model call (attempt is "N" or
// "N of M"); the HTTP status, 0 when it names none, decides the code.
func RetryError(agent string, status int, attempt, detail string) *ErrorInfo {
	e := &ErrorInfo{Message: agent + ": API request failed", Code: StatusCode(status), Status: status, Detail: detail, Retry: true}
	if status != 0 {
		e.Message += " with HTTP " + strconv.Itoa(status)
	}
	e.Message += ", retrying (attempt " + attempt + ")"
	return e
}

// ErrorRepeats reports whether an error among evs (a fatal one when fatal is set) says
// text: an agent that reports a failure twice, as text and as an error, is shown it once.
func ErrorRepeats(evs []Event, text string, fatal bool) bool {
	return slices.ContainsFunc(evs, func(e Event) bool {
		return e.Type == EventError && e.Error != nil && (e.Error.Fatal || !fatal) &&
			(strings.Contains(e.Error.Message, text) || strings.Contains(e.Error.Detail, text))
	})
}

// OneLine collapses whitespace runs so a message fits on one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// FirstLine is the first line of s, trimmed.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
