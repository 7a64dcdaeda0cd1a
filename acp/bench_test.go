package acp

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
)

func BenchmarkInitialize(b *testing.B) {
	reg := adapters.NewRegistry()
	reg.Register(replay.New(""))
	s := newServer(Options{Registry: reg, Logger: zerolog.Nop()})
	params := []byte(`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}`)
	for b.Loop() {
		if _, _, err := methods["initialize"](s, context.Background(), params)(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEventOverhead measures adapter event -> editor line latency
// through the whole server over io.Pipe (one prompt of b.N text events);
// the test client also schema-validates every line, so this is an upper bound.
func BenchmarkEventOverhead(b *testing.B) {
	lines := make([]string, 0, b.N)
	for range b.N {
		lines = append(lines, `{"event":{"type":"text","text":"chunk of text"}}`)
	}
	c := newClient(b, scriptFile(b, lines...))
	sid, _ := c.start(b)
	b.ResetTimer()
	start := time.Now()
	c.prompt(sid, "go")
	total := time.Since(start)
	b.StopTimer()
	per := total / time.Duration(max(b.N, 1))
	b.ReportMetric(float64(per.Nanoseconds()), "ns/event")
}
