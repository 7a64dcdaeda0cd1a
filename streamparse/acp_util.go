package streamparse

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// acpLineDecoder is the shape shared by the H4 decoders (acp, gemini, qoder).
type acpLineDecoder interface {
	Decode(line []byte) []adapters.Event
}

// acpDecodeLines feeds data to dec one '\n'-separated line at a time.
func acpDecodeLines(dec acpLineDecoder, data []byte) []adapters.Event {
	// About one event per line: sizing once saves regrowing a slice of
	// large structs, a good part of the cost on short lines.
	out := make([]adapters.Event, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		out = append(out, dec.Decode(line)...)
	}
	return out
}

// acpRaw wraps a record hub does not understand. Invalid JSON is stored as a
// JSON string so the event stays marshalable.
func acpRaw(source string, rec []byte) adapters.Event {
	raw := json.RawMessage(bytes.Clone(rec))
	if !json.Valid(raw) {
		b, _ := json.Marshal(string(rec))
		raw = b
	}
	return adapters.Event{Type: adapters.EventRaw, Source: source, Raw: raw}
}

// acpNonNull drops absent and JSON-null values.
func acpNonNull(v json.RawMessage) json.RawMessage {
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	return v
}

// acpOneLine collapses whitespace runs so a message fits on one line.
func acpOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
