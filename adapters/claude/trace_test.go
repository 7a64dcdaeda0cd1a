package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/testlog"
	"github.com/hubdev/hub/internal/trace"
)

// With tracing on, an agent start and a turn on a (fake) claude log their
// hops in the order they happen, each once.
func TestTrace_HopsInOrder(t *testing.T) {
	var buf testlog.Buffer
	log := zerolog.New(&buf)
	trace.Enable(&log)
	t.Cleanup(func() { trace.Enable(nil) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := New(config.AgentConfig{Command: config.Command{exe}, Env: map[string]string{"HUB_FAKE_CLAUDE": "text"}}, zerolog.Nop())
	start := trace.Begin(context.Background(), "start", "s1")
	s, err := a.Start(start, adapters.SessionOptions{Cwd: t.TempDir(), CancelGrace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.(*Session).Surface(context.Background()); err != nil { // waits for the handshake
		t.Fatal(err)
	}
	turn := trace.Begin(context.Background(), "turn", "s1")
	for range 2 { // the second turn's hops are its own span's: none here
		if _, err := s.Prompt(turn, []adapters.Content{{Type: adapters.ContentText, Text: "hi"}}, func(adapters.Event) {}); err != nil {
			t.Fatal(err)
		}
		turn = context.Background()
	}
	tests := []struct {
		span string
		want []string
	}{
		{"start", []string{trace.Spawned, trace.Handshake}},
		{"turn", []string{trace.Written, trace.FirstByte, trace.FirstEvent}},
	}
	for _, tt := range tests {
		if got := hops(t, buf.String(), tt.span); !slices.Equal(got, tt.want) {
			t.Errorf("%s hops = %q, want %q", tt.span, got, tt.want)
		}
	}
}

// hops lists the hops logged for span, in the order they were logged, and
// checks their offsets never go back.
func hops(t *testing.T, log, span string) []string {
	t.Helper()
	var out []string
	last := -1.0
	for line := range bytes.Lines([]byte(log)) {
		var r struct {
			Message, Span, Hop string
			MS                 float64
		}
		if json.Unmarshal(line, &r) != nil || r.Message != "trace" || r.Span != span {
			continue
		}
		if r.MS < last {
			t.Errorf("%s: %q logged at %v ms, before the hop logged ahead of it (%v ms)", span, r.Hop, r.MS, last)
		}
		last = r.MS
		out = append(out, r.Hop)
	}
	return out
}
