//go:build unix

package runner

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation/bestof"
	"github.com/hubdev/hub/internal/mockllm"
)

// The wall time of best of 3 against the mock (each turn answers after
// 100 ms) versus one candidate alone: the worktrees and the check are the
// overhead. go test -run '^$' -bench BestOf ./internal/runner/
func benchBestOf(b *testing.B, n int) {
	dir := gitRepo(b)
	mock := mockllm.NewOpenAIServer()
	b.Cleanup(mock.Close)
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "m", BaseURL: mock.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second}))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < n; j++ {
			mock.Add(mockllm.OpenAITurn{Text: "ok", Delay: 100 * time.Millisecond})
		}
		s := BestOf(context.Background(), bestof.Options{Candidate: candidate(reg, dir, "x"), Agents: []string{"m"}, N: n, Jobs: n,
			Check: "true"}, FormatText, io.Discard, io.Discard)
		if s.ExitCode != 0 {
			b.Fatalf("exit %d: %s", s.ExitCode, s.Error)
		}
	}
}

func BenchmarkBestOf_1Candidate(b *testing.B)  { benchBestOf(b, 1) }
func BenchmarkBestOf_3Candidates(b *testing.B) { benchBestOf(b, 3) }
