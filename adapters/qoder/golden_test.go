package qoder

import (
	"flag"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodeQoder decodes a whole stream-json output.
func DecodeQoder(data []byte) []adapters.Event {
	d := NewQoderDecoder()
	return append(adapters.DecodeLines(d, data), d.Flush()...)
}

// DecodeACP decodes a recorded `qodercli --acp` stream with qodercli's
// quirks.
func DecodeACP(data []byte) []adapters.Event {
	return adapters.DecodeLines(&acpclient.ACPDecoder{Quirks: Quirks}, data)
}
