package delegate

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/delegation"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/runner"
)

// The overhead a delegation adds over running the same turn directly:
// one text turn of the native loop against the mock provider, through the
// MCP delegate tool (in-memory transport) and through hub run's runner.
// go test -run '^$' -bench Delegation ./internal/delegate/
func benchReg(b *testing.B) (*adapters.Registry, *mockllm.OpenAIServer) {
	mock := mockllm.NewOpenAIServer()
	b.Cleanup(mock.Close)
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: mock.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second}))
	return reg, mock
}

func BenchmarkDelegation_MCPDelegate(b *testing.B) {
	reg, mock := benchReg(b)
	d := delegation.New(delegation.Options{Registry: reg, Cwd: b.TempDir(), Log: zerolog.Nop()})
	defer d.Close()
	cs, _ := connect(b, d)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mock.Add(mockllm.OpenAITurn{Text: "Done."})
		if _, r := call(b, cs, "delegate", map[string]any{"agent": "native", "prompt": "hi"}); r.Answer != "Done." {
			b.Fatalf("answer %q", r.Answer)
		}
	}
}

func BenchmarkDelegation_HubRunDirect(b *testing.B) {
	reg, mock := benchReg(b)
	cwd := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mock.Add(mockllm.OpenAITurn{Text: "Done."})
		s := runner.Run(context.Background(), runner.Options{Registry: reg, Agent: "native", Cwd: cwd, Prompt: "hi",
			Approve: conversation.ApproveReadOnly, Format: runner.FormatText, Stdout: io.Discard, Stderr: io.Discard, StopAll: func() {}})
		if s.ExitCode != 0 {
			b.Fatalf("exit %d: %s", s.ExitCode, s.Error)
		}
	}
}
