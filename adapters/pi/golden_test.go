package pi

import (
	"flag"

	"github.com/hubdev/hub/adapters"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodePi decodes a whole pi stream.
func DecodePi(data []byte) []adapters.Event {
	d := NewPiDecoder("")
	return append(adapters.DecodeLines(d, data), d.Flush()...)
}
