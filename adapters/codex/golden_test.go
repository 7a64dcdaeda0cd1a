package codex

import (
	"bytes"
	"flag"

	"github.com/hubdev/hub/adapters"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodeCodex decodes a whole app-server stream.
func DecodeCodex(data []byte) []adapters.Event {
	return decodeLines(NewCodexDecoder(), data)
}

// DecodeCodexExec decodes a whole `codex exec --json` stream.
func DecodeCodexExec(data []byte) []adapters.Event {
	return decodeLines(NewCodexExecDecoder(), data)
}

// decodeLines feeds data to d a line at a time, newline kept, as a
// session's reader does.
func decodeLines(d adapters.LineDecoder, data []byte) (evs []adapters.Event) {
	for line := range bytes.Lines(data) {
		evs = append(evs, d.Decode(line)...)
	}
	return evs
}
