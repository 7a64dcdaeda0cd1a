package delegation

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/personas"
)

// A delegate that took a persona's turn over runs as that persona for
// good: its own delegates see it as the persona (hub's server only when
// the persona may delegate, and the persona's rules then bind them), and a
// new session of it (its agent ignored a cancel) starts as the persona
// again, not bare.
func TestDelegate_FallbackAgentStaysThePersona(t *testing.T) {
	for _, tt := range []struct {
		name     string
		tools    []string
		delegate bool // the persona may delegate
	}{
		{"a persona that may delegate", nil, true},
		{"a persona that may not delegate", []string{"Read"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			second := answers("second")
			second.stuck = make(chan struct{})
			reg := adapters.NewRegistry()
			reg.Register(&fakeAgent{name: "inner", start: adapters.ErrNotAuthenticated})
			reg.Register(second)
			reg.Register(&personas.Adapter{P: personas.Persona{Name: "worker", Description: "d", Prompt: "You are the worker.", Tools: tt.tools,
				ToolsSet: tt.tools != nil, Trusted: true}, Backend: &fakeAgent{name: "inner", start: adapters.ErrNotAuthenticated}})
			var seen []adapters.Adapter // second as it runs, by MCPServers
			d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Fallback: map[string][]string{"worker": {"second"}},
				MCPServers: func(a adapters.Adapter) []adapters.MCPServer {
					if a.Name() == "second" {
						seen = append(seen, a)
					}
					return nil
				}})
			defer d.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { <-second.stuck; cancel() }()
			r, err := d.Delegate(ctx, Request{Agent: "worker", Prompt: "read the parser"}, nil)
			if err != nil || r.Agent != "second" {
				t.Fatalf("the first turn: %+v, %v; want second to take it over", r, err)
			}
			if c, err := d.Delegate(context.Background(), Request{Session: r.Session, Prompt: "now fix it"}, nil); err != nil || c.Agent != "second" {
				t.Fatalf("follow-up: %+v, %v", c, err)
			}
			second.mu.Lock()
			defer second.mu.Unlock()
			if second.starts != 2 || len(seen) != 2 {
				t.Fatalf("second started %d sessions, MCPServers called %d times: want 2 each", second.starts, len(seen))
			}
			for i, a := range seen {
				if conversation.RunsAs(a) != "worker" || personas.MayDelegate(a) != tt.delegate || !strings.HasPrefix(second.instructions[i], "You are the worker.") {
					t.Errorf("start %d: runs as %q, may delegate %v, instructions %q: want the worker persona", i+1, conversation.RunsAs(a), personas.MayDelegate(a), second.instructions[i])
				}
			}
		})
	}
}
