package acp

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/personas"
)

// scripted is an agent that fails to start with startErr, or plays events.
type scripted struct {
	name     string
	startErr error
	events   []adapters.Event
}

func (a *scripted) Name() string                        { return a.name }
func (a *scripted) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (a *scripted) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	if a.startErr != nil {
		return nil, a.startErr
	}
	return &scriptedSession{a: a}, nil
}

type scriptedSession struct{ a *scripted }

func (s *scriptedSession) ID() string   { return s.a.name + "-1" }
func (s *scriptedSession) Close() error { return nil }
func (s *scriptedSession) Prompt(ctx context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	ch := make(chan adapters.Event, len(s.a.events)+1)
	for _, e := range s.a.events {
		ch <- e
	}
	close(ch)
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{})
}

// The native loop's provider answering 500 (retried without end) or 401
// hands the turn over in bounded time, unless a tool call started.
func TestFallback_OverACPOnProviderFailures(t *testing.T) {
	fail := func(status, n int) []mockllm.OpenAITurn {
		turns := make([]mockllm.OpenAITurn, n)
		for i := range turns {
			turns[i] = mockllm.OpenAITurn{Status: status}
		}
		return turns
	}
	toolFirst := append([]mockllm.OpenAITurn{{ToolCalls: []mockllm.OpenAIToolCall{{Name: "read_file", Args: `{"path":"a.txt"}`}}}}, fail(500, 200)...)
	tests := []struct {
		name     string
		turns    []mockllm.OpenAITurn
		retries  int
		fellBack string // the message's reason, "" for none
	}{
		{"500 retried past the bound", fail(500, 200), 1000, "first's provider is failing"},
		{"401 at once", fail(401, 1), 1000, "first is not logged in"},
		{"500 after a tool call started", toolFirst, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(tt.turns...)
			defer srv.Close()
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "first", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true},
				openai.Options{MaxRetries: &tt.retries}))
			end := adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
			reg.Register(&scripted{name: "second", events: []adapters.Event{{Type: adapters.EventText, Text: "second answered"}, end}})
			c := startClient(t, Options{Registry: reg, DefaultAgent: "first", Logger: zerolog.Nop(), StateDir: t.TempDir(),
				Fallback: map[string][]string{"first": {"second"}}, ProviderTimeout: time.Millisecond})
			sid, _ := c.start(t)
			_, e := c.call("session/prompt", promptOf(sid, "fix it"))
			text := c.agentText(sid)
			if tt.fellBack == "" {
				if e == nil || strings.Contains(text, "continuing with") {
					t.Fatalf("fell back after a tool started: error %v, text %q", e, text)
				}
				return
			}
			if e != nil || !strings.Contains(text, "hub: "+tt.fellBack+"; continuing with second.") || !strings.HasSuffix(text, "second answered") {
				t.Fatalf("error %v, text %q", e, text)
			}
		})
	}
}

func TestFallback_OverACPOnlyBeforeAnyToolCall(t *testing.T) {
	crash := adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "first exited", Code: adapters.CodeCrash, Fatal: true}}
	end := adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
	tool := adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Title: "Run make", Kind: adapters.KindExecute}}
	tests := []struct {
		name     string
		first    *scripted
		fellBack string // the message's reason, "" for none
	}{
		{"not logged in", &scripted{startErr: fmt.Errorf("first: %w", adapters.ErrNotAuthenticated)}, "first is not logged in"},
		{"crash before tools", &scripted{events: []adapters.Event{crash, end}}, "first crashed"},
		{"crash after a tool started", &scripted{events: []adapters.Event{tool, crash, end}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.first.name = "first"
			reg := adapters.NewRegistry()
			reg.Register(tt.first)
			reg.Register(&scripted{name: "second", events: []adapters.Event{{Type: adapters.EventText, Text: "second answered"}, end}})
			c := startClient(t, Options{Registry: reg, DefaultAgent: "first", Logger: zerolog.Nop(), StateDir: t.TempDir(),
				Fallback: map[string][]string{"first": {"second"}}})
			sid, _ := c.start(t)
			_, e := c.call("session/prompt", promptOf(sid, "fix it"))
			text := c.agentText(sid)
			if tt.fellBack == "" {
				if e == nil || strings.Contains(text, "continuing with") {
					t.Fatalf("fell back after a tool started: error %v, text %q", e, text)
				}
				return
			}
			if e != nil || !strings.Contains(text, "hub: "+tt.fellBack+"; continuing with second.") || !strings.HasSuffix(text, "second answered") {
				t.Fatalf("error %v, text %q", e, text)
			}
			var agent string
			for _, u := range c.updates(sid) {
				if u.ConfigOption != nil {
					for _, o := range u.ConfigOption.ConfigOptions {
						if o.ID == "agent" {
							agent = o.CurrentValue
						}
					}
				}
			}
			if agent != "second" {
				t.Fatalf("agent option after the fallback = %q", agent)
			}
		})
	}
}

// A turn follows its first agent's fallback list, as hub run and delegates
// do: the agent it fell back to brings no list of its own into the turn.
func TestFallback_OverACPFollowsTheFirstAgentsList(t *testing.T) {
	down := fmt.Errorf("down: %w", adapters.ErrNotAuthenticated)
	end := adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
	reg := adapters.NewRegistry()
	reg.Register(&scripted{name: "first", startErr: down})
	reg.Register(&scripted{name: "second", startErr: down})
	reg.Register(&scripted{name: "third", events: []adapters.Event{{Type: adapters.EventText, Text: "third answered"}, end}})
	reg.Register(&scripted{name: "fourth", events: []adapters.Event{{Type: adapters.EventText, Text: "fourth answered"}, end}})
	c := startClient(t, Options{Registry: reg, DefaultAgent: "first", Logger: zerolog.Nop(), StateDir: t.TempDir(),
		Fallback: map[string][]string{"first": {"second", "third"}, "second": {"fourth"}}})
	sid, _ := c.start(t)
	if _, e := c.call("session/prompt", promptOf(sid, "fix it")); e != nil {
		t.Fatalf("prompt: %v", e)
	}
	if text := c.agentText(sid); !strings.Contains(text, "continuing with third.") || !strings.HasSuffix(text, "third answered") {
		t.Fatalf("text %q, want second then third (first's list), not fourth (second's)", text)
	}
}

// The agent that took a persona's turn over runs as the persona for the
// rest of the session, a hub restart included: it never widens what the
// persona narrowed.
func TestFallback_TheNextAgentStaysThePersona(t *testing.T) {
	reg := adapters.NewRegistry()
	inner := &scripted{name: "inner", startErr: fmt.Errorf("down: %w", adapters.ErrNotAuthenticated)}
	reg.Register(&personas.Adapter{P: personas.Persona{Name: "first", Description: "d", Prompt: "You only review.", Trusted: true}, Backend: inner})
	second := &forgetful{}
	reg.Register(renamed{second, "second"})
	opts := Options{Registry: reg, DefaultAgent: "first", Logger: zerolog.Nop(), StateDir: t.TempDir(), Fallback: map[string][]string{"first": {"second"}}}
	c := startClient(t, opts)
	sid, cwd := c.start(t)
	c.prompt(sid, "fix it")
	c.close()
	c2 := startClient(t, opts)
	c2.init(schema.ClientCapabilities{})
	c2.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
	c2.prompt(sid, "and now?")
	second.mu.Lock()
	defer second.mu.Unlock()
	if len(second.instr) != 2 || !strings.Contains(second.instr[0], "You only review.") || !strings.Contains(second.instr[1], "You only review.") {
		t.Fatalf("second started with instructions %q, want the persona's at the fallback and after hub restarted", second.instr)
	}
}

// A session whose agent runs as a persona that is gone when hub loads it
// again (its file removed or no longer readable) does not run the agent
// bare: that would drop every rule the persona added.
func TestFallback_APersonaGoneStopsItsFallbackAgent(t *testing.T) {
	reg, reg2 := adapters.NewRegistry(), adapters.NewRegistry()
	inner := &scripted{name: "inner", startErr: fmt.Errorf("down: %w", adapters.ErrNotAuthenticated)}
	reg.Register(&personas.Adapter{P: personas.Persona{Name: "first", Description: "d", Prompt: "You only review.", Trusted: true}, Backend: inner})
	second := &forgetful{}
	reg.Register(renamed{second, "second"})
	reg2.Register(renamed{second, "second"})
	opts := Options{Registry: reg, DefaultAgent: "first", Logger: zerolog.Nop(), StateDir: t.TempDir(), Fallback: map[string][]string{"first": {"second"}}}
	c := startClient(t, opts)
	sid, cwd := c.start(t)
	c.prompt(sid, "fix it")
	c.close()
	opts.Registry = reg2
	c2 := startClient(t, opts)
	c2.init(schema.ClientCapabilities{})
	c2.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
	_, rpcErr := c2.call("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("and now?")}})
	second.mu.Lock()
	defer second.mu.Unlock()
	if len(second.instr) != 1 {
		t.Fatalf("second started %d times (instructions %q, prompt error %v): want it refused once its persona is gone", len(second.instr), second.instr, rpcErr)
	}
}

// A turn hub prices (no agent told its cost) costs every attempt's usage,
// as hub run's summary says: the editor's last cost is the sum, once.
func TestFallback_PricedCostIsEveryAttempts(t *testing.T) {
	model := adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{Model: "gpt-4o"}}
	usage := adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: 1000, OutputTokens: 100}}
	crash := adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "first exited", Code: adapters.CodeCrash, Fatal: true}}
	end := adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
	reg := adapters.NewRegistry()
	reg.Register(&scripted{name: "first", events: []adapters.Event{model, usage, crash, end}})
	reg.Register(&scripted{name: "second", events: []adapters.Event{model, usage, {Type: adapters.EventText, Text: "second answered"}, end}})
	c := startClient(t, Options{Registry: reg, DefaultAgent: "first", Logger: zerolog.Nop(), StateDir: t.TempDir(),
		Fallback: map[string][]string{"first": {"second"}}})
	sid, _ := c.start(t)
	if _, e := c.call("session/prompt", promptOf(sid, "fix it")); e != nil {
		t.Fatalf("prompt: %v", e)
	}
	var costs []float64
	for _, u := range c.updates(sid) {
		if u.Usage != nil && u.Usage.Cost != nil {
			costs = append(costs, u.Usage.Cost.Amount)
		}
	}
	if want := 2 * (1000*2.50 + 100*10.00) / 1e6; len(costs) != 1 || math.Abs(costs[0]-want) > 1e-12 {
		t.Fatalf("costs told %v, want $%g once", costs, want)
	}
}
