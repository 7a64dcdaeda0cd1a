package claude

import (
	"flag"

	"github.com/hubdev/hub/adapters"
)

// update rewrites the expected.json golden files: go test -run X -update.
var update = flag.Bool("update", false, "rewrite expected.json golden files")

// DecodeClaude decodes a whole stream, one record per line.
func DecodeClaude(data []byte) []adapters.Event {
	return adapters.DecodeLines(NewClaudeDecoder(), data)
}
