package codex

import (
	"flag"

	"github.com/hubdev/hub/adapters"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodeCodex decodes a whole app-server stream.
func DecodeCodex(data []byte) []adapters.Event {
	return adapters.DecodeLines(NewCodexDecoder(), data)
}

// DecodeCodexExec decodes a whole `codex exec --json` stream.
func DecodeCodexExec(data []byte) []adapters.Event {
	return adapters.DecodeLines(NewCodexExecDecoder(), data)
}
