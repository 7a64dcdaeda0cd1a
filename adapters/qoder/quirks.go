package qoder

import (
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
)

// Quirks are qodercli's departures from ACP: it reports a failed model call twice, as an
// "[Error] <message>" chunk and as session/prompt's error, so the chunk is held and shown
// only when the error does not repeat it. Its Bash tool keeps the shell's directory
// between calls: hub follows it (shelldir.go).
var Quirks = acpclient.Quirks{ErrorChunk: errorChunk, FollowShell: followShell}

func errorChunk(text string) string {
	rest, ok := strings.CutPrefix(text, "[Error]")
	if !ok {
		return ""
	}
	return adapters.OneLine(rest)
}
