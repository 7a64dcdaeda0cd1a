package openai

import (
	"context"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/sandbox"
)

// BenchmarkLoopTurn measures one prompt -> streamed answer -> done against a
// loopback mock that answers instantly, so the number is hub's own overhead
// (request encoding, HTTP round trip on loopback, SSE parsing, events).
func BenchmarkLoopTurn(b *testing.B) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "The answer is forty-two, as usual."})
	srv.SetLoop(true)
	defer srv.Close()
	benchTurns(b, New(Profile{Name: "bench", BaseURL: srv.URL, Model: "m", Local: true, Stream: true}, Options{IdleTimeout: time.Minute}))
}

// benchTurns runs b.N one-turn sessions of a, gated by rules, failing on an error or a
// failed tool call.
func benchTurns(b *testing.B, a *Adapter, rules ...config.PermissionRule) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cwd := b.TempDir()
		s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: cwd, Permission: newGate(b, cwd, rules...).ask})
		if err != nil {
			b.Fatal(err)
		}
		ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("question"))
		if err != nil {
			b.Fatal(err)
		}
		for ev := range ch {
			if ev.Type == adapters.EventError {
				b.Fatal(ev.Error.Message)
			}
			if ev.Type == adapters.EventToolUpdate && ev.Tool.Status == adapters.StatusFailed {
				b.Fatalf("the tool call failed: %+v", ev.Tool.Content)
			}
		}
		_ = s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/turn")
}

// BenchmarkLoopToolCall is BenchmarkLoopTurn with one bash tool call
// (`true`, allowed by a rule) before the answer, with the sandbox off and
// on: the difference to BenchmarkLoopTurn is the loop's cost of a tool
// call (a second request, the permission check, the command).
//
//	go test -run '^$' -bench 'BenchmarkLoop' -benchtime 200x ./adapters/openai/
func BenchmarkLoopToolCall(b *testing.B) {
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.WorkspaceWrite} {
		b.Run(string(mode), func(b *testing.B) {
			if mode != sandbox.Off && !sandbox.New(sandbox.Policy{Mode: mode}, nil).Active() {
				b.Skip("no working bwrap here")
			}
			srv := mockllm.NewOpenAIServer(
				mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"true"}`}}},
				mockllm.OpenAITurn{Text: "Done."})
			srv.SetLoop(true)
			defer srv.Close()
			benchTurns(b, New(Profile{Name: "bench", BaseURL: srv.URL, Model: "m", Local: true, Stream: true},
				Options{IdleTimeout: time.Minute, Sandbox: sandbox.Policy{Mode: mode}}),
				config.PermissionRule{Tool: "*", Decision: "allow"})
		})
	}
}
