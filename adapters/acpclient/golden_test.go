package acpclient

import (
	"flag"

	"github.com/hubdev/hub/adapters"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodeACP decodes a whole newline-separated ACP stream.
func DecodeACP(data []byte) []adapters.Event {
	return adapters.DecodeLines(NewACPDecoder(), data)
}

// NewACPDecoder returns a decoder for one ACP session stream.
func NewACPDecoder() *ACPDecoder { return &ACPDecoder{} }
