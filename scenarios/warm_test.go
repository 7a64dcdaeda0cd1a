package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp"
	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// gated is an agent whose first start waits until released; its sessions
// answer with what they run: the model (from the start, or set live) and
// whether hub's delegate tool is among their MCP servers.
type gated struct {
	started, release chan struct{}
	once             sync.Once
}

func (a *gated) Name() string { return "gated" }
func (a *gated) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{MCP: true, Permissions: true, Models: []adapters.Option{{ID: "m1"}, {ID: "m2"}}, DefaultModel: "m1"}
}

func (a *gated) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	a.once.Do(func() {
		a.started <- struct{}{}
		<-a.release
	})
	return &gatedSession{opts: o, model: o.Model}, nil
}

type gatedSession struct {
	opts  adapters.SessionOptions
	model string
}

func (s *gatedSession) ID() string   { return "" }
func (s *gatedSession) Close() error { return nil }
func (s *gatedSession) Prompt(_ context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	delegates := false
	for _, m := range s.opts.MCPServers {
		delegates = delegates || m.Name == "hub"
	}
	emit(adapters.Event{Type: adapters.EventText, Text: fmt.Sprintf("model=%s delegate=%v", s.model, delegates)})
	return adapters.StopEndTurn, nil
}
func (s *gatedSession) SetModel(_ context.Context, m string) error { s.model = m; return nil }
func (s *gatedSession) SetMode(context.Context, string) error      { return nil }

// The warm-start row: an option set while the agent is still starting
// reaches the agent that answers the first prompt. Only hub acp starts an
// agent before its prompt and takes option changes meanwhile; hub run, a
// delegate and a /compare candidate start theirs with the options given
// and change none while it starts, so the row does not apply to them.
func TestScenarios_OptionSetDuringTheWarmStartReachesTheAgent(t *testing.T) {
	for _, tt := range []struct{ option, value, want string }{
		{"delegation", "on", "delegate=true"},
		{"model", "m2", "model=m2"},
	} {
		t.Run(tt.option, func(t *testing.T) {
			for _, fe := range frontEnds {
				t.Run(fe.name, func(t *testing.T) {
					if fe.name != "hub acp" {
						t.Skip(fe.name + " has no warm start: its agent starts with the options given, none changes while it starts")
					}
					a := &gated{started: make(chan struct{}, 1), release: make(chan struct{})}
					reg := adapters.NewRegistry()
					reg.Register(a)
					e := startEditor(t, acp.Options{Registry: reg, DefaultAgent: "gated", Logger: zerolog.Nop(), StateDir: t.TempDir(),
						CancelGrace: time.Second, Self: "/usr/local/bin/hub"})
					sid := e.open(t.TempDir())
					<-a.started // the warm start is in flight
					e.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: tt.option,
						Value: json.RawMessage(`"` + tt.value + `"`)}, nil)
					close(a.release)
					if _, err := e.prompt(sid, "hi"); err != nil {
						t.Fatal(err)
					}
					if got := e.text(); !strings.Contains(got, tt.want) {
						t.Fatalf("after %s=%s during the start the agent answered %q, want %s", tt.option, tt.value, got, tt.want)
					}
				})
			}
		})
	}
}
