package conversation

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// agentSession is an agent session that cannot change anything live;
// liveSession can, and records each change.
type agentSession struct{ sets []string }

func (s *agentSession) ID() string   { return "" }
func (s *agentSession) Close() error { return nil }
func (s *agentSession) Prompt(context.Context, []adapters.Content, func(adapters.Event)) (adapters.StopReason, error) {
	return adapters.StopEndTurn, nil
}

type liveSession struct{ agentSession }

func (s *liveSession) SetModel(_ context.Context, m string) error { s.note("model=" + m); return nil }
func (s *liveSession) SetMode(_ context.Context, m string) error  { s.note("mode=" + m); return nil }
func (s *liveSession) SetOption(_ context.Context, id, v string) error {
	s.note(id + "=" + v)
	return nil
}
func (s *agentSession) note(set string) { s.sets = append(s.sets, set) }

func TestSetup_ReachAppliesLiveOrAsksForARestart(t *testing.T) {
	have := Setup{Model: "m1", Options: map[string]string{"effort": "low"},
		MCPServers: []adapters.MCPServer{{Name: "db", Type: "stdio", Command: "db-mcp"}}, AddDirs: []string{"/lib"}}
	with := func(change func(*Setup)) Setup {
		s := have
		s.Options = map[string]string{"effort": "low"}
		s.MCPServers = slices.Clone(have.MCPServers)
		change(&s)
		return s
	}
	tests := []struct {
		name    string
		want    Setup
		live    bool
		restart bool
		sets    []string
	}{
		{"nothing changed", with(func(*Setup) {}), false, false, nil},
		{"model, live", with(func(s *Setup) { s.Model = "m2" }), true, false, []string{"model=m2"}},
		{"model, not live", with(func(s *Setup) { s.Model = "m2" }), false, true, nil},
		{"mode and an option, live", with(func(s *Setup) { s.Mode = "plan"; s.Options["effort"] = "high" }), true, false, []string{"mode=plan", "effort=high"}},
		{"an option, not live", with(func(s *Setup) { s.Options["effort"] = "high" }), false, true, nil},
		{"delegation", with(func(s *Setup) { s.Delegation = true }), true, true, nil},
		{"an added directory", with(func(s *Setup) { s.AddDirs = append(s.AddDirs, "/more") }), true, true, nil},
		{"an MCP server changed", with(func(s *Setup) { s.MCPServers[0].Env = map[string]string{"K": "v"} }), true, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b adapters.Session
			rec := &agentSession{}
			if tt.live {
				l := &liveSession{}
				b, rec = l, &l.agentSession
			} else {
				b = rec
			}
			err := tt.want.Reach(context.Background(), b, have)
			if errors.Is(err, adapters.ErrNeedsRestart) != tt.restart || (err != nil && !tt.restart) {
				t.Fatalf("Reach = %v, want restart %v", err, tt.restart)
			}
			if !slices.Equal(rec.sets, tt.sets) {
				t.Fatalf("set live %v, want %v", rec.sets, tt.sets)
			}
		})
	}
}
