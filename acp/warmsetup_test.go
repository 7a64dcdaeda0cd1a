package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// warmGate is an agent whose first start waits for release; its sessions
// answer with what they run: the model (from the start, or set live) and
// whether hub's delegate tool was among their MCP servers.
type warmGate struct {
	started, release chan struct{}
	once             sync.Once
}

func (a *warmGate) Name() string { return "gated" }
func (a *warmGate) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{MCP: true, Permissions: true, Models: []adapters.Option{{ID: "m1"}, {ID: "m2"}}, DefaultModel: "m1"}
}

func (a *warmGate) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	a.once.Do(func() {
		a.started <- struct{}{}
		<-a.release
	})
	return &warmGateSession{opts: o, model: o.Model}, nil
}

type warmGateSession struct {
	opts  adapters.SessionOptions
	model string
}

func (s *warmGateSession) ID() string   { return "" }
func (s *warmGateSession) Close() error { return nil }
func (s *warmGateSession) Prompt(_ context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	emit(adapters.Event{Type: adapters.EventText, Text: fmt.Sprintf("model=%s delegate=%v", s.model, hubEntry(s.opts.MCPServers).Command != "")})
	return adapters.StopEndTurn, nil
}
func (s *warmGateSession) SetModel(_ context.Context, m string) error { s.model = m; return nil }
func (s *warmGateSession) SetMode(context.Context, string) error      { return nil }

// An option set right after session/new, while the agent is still warming
// up, reaches the agent that answers the first prompt: live where it can
// change it, else by starting it again with it.
func TestWarmStart_OptionSetDuringTheStartReachesTheAgent(t *testing.T) {
	tests := []struct{ option, value, want string }{
		{"delegation", "on", "delegate=true"},
		{"model", "m2", "model=m2"},
	}
	for _, tt := range tests {
		t.Run(tt.option, func(t *testing.T) {
			a := &warmGate{started: make(chan struct{}, 1), release: make(chan struct{})}
			reg := adapters.NewRegistry()
			reg.Register(a)
			c := startClient(t, Options{Registry: reg, DefaultAgent: "gated", Logger: zerolog.Nop(), StateDir: t.TempDir(),
				CancelGrace: time.Second, Self: "/usr/local/bin/hub"})
			sid, _ := c.start(t)
			<-a.started // the warm start is in flight
			c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: tt.option, Value: json.RawMessage(`"` + tt.value + `"`)}, nil)
			close(a.release)
			c.prompt(sid, "hi")
			if got := agentText(c.updates(sid)); !strings.Contains(got, tt.want) {
				t.Fatalf("after %s=%s during the start the agent answered %q, want %s", tt.option, tt.value, got, tt.want)
			}
		})
	}
}
