package pi

import (
	"bytes"
	"flag"

	"github.com/hubdev/hub/adapters"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodePi decodes a whole pi stream.
func DecodePi(data []byte) []adapters.Event {
	d := NewPiDecoder("")
	return append(decodeLines(d, data), d.Flush()...)
}

// decodeLines feeds data to d a line at a time, newline kept, as a
// session's reader does.
func decodeLines(d adapters.LineDecoder, data []byte) (evs []adapters.Event) {
	for line := range bytes.Lines(data) {
		evs = append(evs, d.Decode(line)...)
	}
	return evs
}
