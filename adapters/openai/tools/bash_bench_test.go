package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hubdev/hub/internal/sandbox"
)

// BenchmarkBash_Sandbox measures one bash tool call (`true`) with the
// sandbox off and on: the difference is the sandbox's per-call overhead.
//
//	go test -run '^$' -bench BenchmarkBash_Sandbox -benchtime 200x ./adapters/openai/tools/
func BenchmarkBash_Sandbox(b *testing.B) {
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		b.Run(string(mode), func(b *testing.B) {
			e, err := NewEnv(b.TempDir(), nil)
			if err != nil {
				b.Fatal(err)
			}
			e.Sandbox = sandbox.New(sandbox.Policy{Mode: mode}, nil)
			if mode != sandbox.Off && !e.Sandbox.Active() {
				b.Skip(e.Sandbox.Status())
			}
			p, err := e.Prepare("bash", json.RawMessage(`{"command":"true"}`))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if r := p.Run(context.Background(), nil); r.Failed {
					b.Fatal(r.Output)
				}
			}
		})
	}
}
