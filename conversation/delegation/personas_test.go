package delegation

import (
	"context"
	"errors"
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

// The chain a fallback delegate hands its own hub mcp (EnvChain, read back
// by name through the registry) keeps the persona it runs as: that hub
// mcp's delegates stay in the persona's plan mode and its delegates list,
// as they would under the parent's delegator.
func TestDelegate_FallbackChainEnvKeepsThePersona(t *testing.T) {
	second := answers("second")
	reg := adapters.NewRegistry()
	for _, a := range []*fakeAgent{{name: "inner", start: adapters.ErrNotAuthenticated}, second, answers("other"),
		{name: "helper", events: answers("helper").events, caps: adapters.Capabilities{Modes: []adapters.Option{{ID: "default"}, {ID: "plan"}}}}} {
		reg.Register(a)
	}
	reg.Register(&personas.Adapter{P: personas.Persona{Name: "planner", Description: "d", Mode: personas.ModePlan, Delegates: []string{"helper"}, Trusted: true},
		Backend: &fakeAgent{name: "inner", start: adapters.ErrNotAuthenticated}})
	d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Fallback: map[string][]string{"planner": {"second"}}})
	defer d.Close()
	if r, err := d.Delegate(context.Background(), Request{Agent: "planner", Prompt: "plan it"}, nil); err != nil || r.Agent != "second" {
		t.Fatalf("the turn: %+v, %v; want second to take it over", r, err)
	}
	env := second.opts[0].Env[EnvChain]
	nested := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Chain: chainOf(reg, strings.Split(env, ","))})
	defer nested.Close()
	if _, err := nested.Delegate(context.Background(), Request{Agent: "other", Prompt: "edit it"}, nil); !errors.Is(err, ErrRefused) {
		t.Fatalf("chain %q: a delegation to an agent planner does not name: %v, want refused", env, err)
	}
	if _, err := nested.Delegate(context.Background(), Request{Agent: "helper", Prompt: "edit it", Mode: "default"}, nil); err != nil {
		t.Fatal(err)
	}
	helper, _ := reg.Get("helper")
	if so := helper.(*fakeAgent).opts[0]; so.Mode != personas.ModePlan || so.Tools.Writes() {
		t.Fatalf("chain %q: helper started in mode %q, tools %+v; want planner's plan mode binding it", env, so.Mode, so.Tools)
	}
}
