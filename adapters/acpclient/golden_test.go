package acpclient

import (
	"bytes"
	"flag"

	"github.com/hubdev/hub/adapters"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodeACP decodes a whole newline-separated ACP stream.
func DecodeACP(data []byte) []adapters.Event {
	return decodeLines(NewACPDecoder(), data)
}

// decodeLines feeds data to d a line at a time, newline kept, as a
// session's reader does.
func decodeLines(d adapters.LineDecoder, data []byte) (evs []adapters.Event) {
	for line := range bytes.Lines(data) {
		evs = append(evs, d.Decode(line)...)
	}
	return evs
}

// NewACPDecoder returns a decoder for one ACP session stream.
func NewACPDecoder() *ACPDecoder { return &ACPDecoder{} }
