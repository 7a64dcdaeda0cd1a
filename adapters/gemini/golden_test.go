package gemini

import (
	"flag"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodeGemini decodes a whole stream-json output.
func DecodeGemini(data []byte) []adapters.Event {
	return adapters.DecodeLines(NewGeminiDecoder(), data)
}

// DecodeACP decodes a recorded `gemini --acp` stream with gemini's quirks.
func DecodeACP(data []byte) []adapters.Event {
	return adapters.DecodeLines(&acpclient.ACPDecoder{Quirks: Quirks}, data)
}
