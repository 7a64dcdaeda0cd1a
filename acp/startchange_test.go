package acp

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
)

// startGate is an adapter whose Start waits for release; its sessions
// record model changes made on them, live or by the start options.
type startGate struct {
	configurable bool
	started      chan struct{}
	release      chan struct{}
	mu           sync.Mutex
	models       []string // start option, then each live SetModel
}

func (a *startGate) Name() string { return "slow" }
func (a *startGate) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Models: []adapters.Option{{ID: "m1", Name: "M1"}, {ID: "m2", Name: "M2"}}, DefaultModel: "m1"}
}

func (a *startGate) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	a.note(o.Model)
	a.started <- struct{}{}
	<-a.release
	if a.configurable {
		return &gateConfigurable{gateSession{a}}, nil
	}
	return &gateSession{a}, nil
}

func (a *startGate) note(model string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.models = append(a.models, model)
}

func (a *startGate) last() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.models[len(a.models)-1]
}

type gateSession struct{ a *startGate }

func (s *gateSession) ID() string   { return "" }
func (s *gateSession) Close() error { return nil }
func (s *gateSession) Prompt(context.Context, []adapters.Content, func(adapters.Event)) (adapters.StopReason, error) {
	return adapters.StopEndTurn, nil
}

type gateConfigurable struct{ gateSession }

func (s *gateConfigurable) SetModel(_ context.Context, m string) error { s.a.note(m); return nil }
func (s *gateConfigurable) SetMode(context.Context, string) error      { return nil }

// A model chosen while the agent starts takes effect on the started agent
// (live where it can change models, else by a restart); the editor is
// never told a value the agent does not run.
func TestSetModel_DuringAgentStartTakesEffect(t *testing.T) {
	for _, configurable := range []bool{true, false} {
		a := &startGate{configurable: configurable, started: make(chan struct{}, 2), release: make(chan struct{})}
		c := newClient(t, "", func(o *Options) {
			o.Registry = adapters.NewRegistry()
			o.Registry.Register(a)
			o.DefaultAgent = "slow"
		})
		sid, _ := c.start(t)
		done := c.async("session/prompt", promptOf(sid, "x"))
		<-a.started
		if _, e := c.call("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "model", Value: []byte(`"m2"`)}); e != nil {
			t.Fatalf("set model during start: %v", e)
		}
		close(a.release)
		if r := c.wait(done); r.Error != nil {
			t.Fatalf("prompt: %v", r.Error)
		}
		if got := a.last(); got != "m2" {
			t.Errorf("configurable=%v: the agent runs model %q after the editor chose m2 (history %v)", configurable, got, a.models)
		}
	}
}

// holdStart is an agent whose start waits for release, then holds while it
// brings the agent to a model chosen meanwhile, until reach closes; it
// counts the prompts it is sent.
type holdStart struct {
	startGate
	reaching, reach chan struct{}
	hold            sync.Once
	prompts         atomic.Int32
}

func (a *holdStart) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	a.started <- struct{}{}
	<-a.release
	return holdSession{a}, nil
}

type holdSession struct{ a *holdStart }

func (s holdSession) ID() string                            { return "" }
func (s holdSession) Close() error                          { return nil }
func (s holdSession) SetMode(context.Context, string) error { return nil }
func (s holdSession) SetModel(context.Context, string) error {
	s.a.hold.Do(func() { close(s.a.reaching); <-s.a.reach })
	return nil
}
func (s holdSession) Prompt(context.Context, []adapters.Content, func(adapters.Event)) (adapters.StopReason, error) {
	s.a.prompts.Add(1)
	return adapters.StopEndTurn, nil
}

// A prompt cancelled after it was accepted but before it reached the agent
// (here held behind a model change that waits for the agent's start)
// answers cancelled, and the agent, once up, is sent nothing.
func TestPrompt_CancelledBeforeTheAgentIsUpSendsNothing(t *testing.T) {
	a := &holdStart{startGate: startGate{started: make(chan struct{}, 1), release: make(chan struct{})},
		reaching: make(chan struct{}), reach: make(chan struct{})}
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(a)
		o.DefaultAgent = "slow"
	})
	sid, _ := c.start(t)
	<-a.started // the warm start
	setModel := func(m string) chan wire {
		return c.async("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "model", Value: []byte(`"` + m + `"`)})
	}
	if r := c.wait(setModel("m2")); r.Error != nil {
		t.Fatalf("set model during start: %v", r.Error)
	}
	close(a.release)
	<-a.reaching                                            // the start brings the agent to m2
	held := setModel("m1")                                  // waits for the start
	prompt := c.async("session/prompt", promptOf(sid, "x")) // waits for the change before it
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	var l schema.ListSessionsResponse
	c.must("session/list", schema.ListSessionsRequest{}, &l) // the read loop took the cancel
	close(a.reach)
	if r := c.wait(prompt); r.Error != nil || !strings.Contains(string(r.Result), schema.StopCancelled) {
		t.Fatalf("prompt answered %s %v, want cancelled", r.Result, r.Error)
	}
	if r := c.wait(held); r.Error != nil {
		t.Fatalf("set model after the start: %v", r.Error)
	}
	if n := a.prompts.Load(); n != 0 {
		t.Fatalf("the agent was sent %d prompt(s) cancelled before it was up", n)
	}
}

// The front end owns the one grace period of a cancelled turn: the agent
// is started with the server's, so both give up together.
func TestStart_AgentGetsServerCancelGrace(t *testing.T) {
	const grace = 1234 * time.Millisecond
	c := newClient(t, "", func(o *Options) { o.CancelGrace = grace })
	sid, _ := c.start(t)
	c.prompt(sid, "hi")
	a, _ := c.reg.Get("replay")
	starts := a.(*replay.Adapter).Starts()
	if len(starts) != 1 || starts[0].CancelGrace != grace {
		t.Fatalf("agent started with %+v, want the server's CancelGrace", starts)
	}
}
