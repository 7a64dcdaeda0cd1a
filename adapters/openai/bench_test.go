package openai

import (
	"context"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

// BenchmarkLoopTurn measures one prompt -> streamed answer -> done against a
// loopback mock that answers instantly, so the number is hub's own overhead
// (request encoding, HTTP round trip on loopback, SSE parsing, events).
func BenchmarkLoopTurn(b *testing.B) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "The answer is forty-two, as usual."})
	srv.SetLoop(true)
	defer srv.Close()
	a := New(Profile{Name: "bench", BaseURL: srv.URL, Model: "m", Local: true, Stream: true}, Options{IdleTimeout: time.Minute})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: b.TempDir()})
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
		}
		_ = s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/turn")
}
