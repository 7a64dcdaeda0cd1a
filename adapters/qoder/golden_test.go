package qoder

import (
	"bytes"
	"flag"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/acpclient/acptest"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodeQoder decodes a whole stream-json output.
func DecodeQoder(data []byte) []adapters.Event {
	d := NewQoderDecoder()
	return append(decodeLines(d, data), d.Flush()...)
}

// DecodeACP decodes a recorded `qodercli --acp` stream with qodercli's
// quirks.
func DecodeACP(data []byte) []adapters.Event {
	return decodeLines(acptest.Lines{D: &acpclient.ACPDecoder{Quirks: Quirks}}, data)
}

// decodeLines feeds data to d a line at a time, newline kept, as a
// session's reader does.
func decodeLines(d adapters.LineDecoder, data []byte) (evs []adapters.Event) {
	for line := range bytes.Lines(data) {
		evs = append(evs, d.Decode(line)...)
	}
	return evs
}
