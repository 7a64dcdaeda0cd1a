package acp

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/testlog"
	"github.com/hubdev/hub/internal/trace"
)

// With tracing on, a session's agent start and its turn log the front
// end's hops in the order they happen, each once per span.
func TestTrace_TurnHopsInOrder(t *testing.T) {
	var buf testlog.Buffer
	log := zerolog.New(&buf)
	trace.Enable(&log)
	t.Cleanup(func() { trace.Enable(nil) })
	a := &countingAdapter{Adapter: replay.New("")}
	c := countingClient(t, a)
	sid, _ := c.start(t)
	c.waitFor(t, func() bool { _, open := a.counts(); return open == 1 })
	c.prompt(sid, "hi")
	tests := []struct {
		span string
		want []string
	}{
		{"start", []string{trace.Started}},
		{"turn", []string{trace.Received, trace.AgentReady, trace.HooksDone, trace.FirstEvent, trace.FirstSent, trace.FirstText}},
	}
	for _, tt := range tests {
		if got := traceHops(buf.String(), sid, tt.span); !slices.Equal(got, tt.want) {
			t.Errorf("%s hops = %q, want %q", tt.span, got, tt.want)
		}
	}
}

// traceHops lists the hops logged for the session's span, in log order.
func traceHops(log, session, span string) []string {
	var out []string
	for line := range bytes.Lines([]byte(log)) {
		var r struct{ Message, Span, Session, Hop string }
		if json.Unmarshal(line, &r) == nil && r.Message == "trace" && r.Span == span && r.Session == session {
			out = append(out, r.Hop)
		}
	}
	return out
}
