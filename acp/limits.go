package acp

import (
	"fmt"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// DefaultMaxPrompt bounds a prompt's content, in bytes, when
// Options.MaxPrompt is 0 (config [acp] max_prompt_mb).
const DefaultMaxPrompt = 8 << 20

// promptRefusal answers a prompt over the limit, naming it and its key.
func (s *server) promptRefusal() *jsonrpc.Error {
	return invalidParams("the prompt is over hub's %s limit: send less, or raise [acp] max_prompt_mb", mib(s.opts.MaxPrompt))
}

// lineLimit refuses a prompt's line (session/prompt, steering, or a request
// whose params come before its method) so long its prompt cannot fit, before
// it is read whole. JSON escaping may double the text, hence twice the limit.
func (s *server) lineLimit(method string) (int, *jsonrpc.Error) {
	switch method {
	case "session/prompt", "_session/steering", "":
		return 2*s.opts.MaxPrompt + 1<<20, s.promptRefusal()
	}
	return 0, nil
}

// promptSize is the prompt's content in bytes, as the agent would get it.
func promptSize(blocks []schema.ContentBlock) int {
	n := 0
	for _, b := range blocks {
		n += len(b.Text) + len(b.Data)
		if b.Resource != nil {
			n += len(b.Resource.Text) + len(b.Resource.Blob)
		}
	}
	return n
}

func mib(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
