package acp

import (
	"context"
	"sync"
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

// The front end owns the one grace period of a cancelled turn: the agent
// is started with the server's, so both give up together.
func TestStart_AgentGetsServerCancelGrace(t *testing.T) {
	c := newClient(t, "")
	sid, _ := c.start(t)
	c.prompt(sid, "hi")
	a, _ := c.reg.Get("replay")
	starts := a.(*replay.Adapter).Starts()
	if len(starts) != 1 || starts[0].CancelGrace != 500*time.Millisecond {
		t.Fatalf("agent started with %+v, want the server's CancelGrace", starts)
	}
}
