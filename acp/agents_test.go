package acp

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/replay"
)

func agentSelect(t *testing.T, opts []schema.SessionConfigOption) []schema.SessionConfigSelectOption {
	t.Helper()
	for _, o := range opts {
		if o.ID == "agent" {
			return o.Options
		}
	}
	t.Fatal("no agent option")
	return nil
}

func values(opts []schema.SessionConfigSelectOption) []string {
	var out []string
	for _, o := range opts {
		out = append(out, o.Value)
	}
	return out
}

func TestAgentSelect_ListsTheAgentsThatCanRunHere(t *testing.T) {
	ghost := acpclient.New(acpclient.Config{Name: "ghost", Argv: []string{"no-such-agent-binary-hub-test"}, Logger: zerolog.Nop()})
	tests := []struct {
		name   string
		pinned []string
		want   []string
	}{
		{name: "every ready agent", want: []string{"other", "replay"}},
		{name: "pinned list, in its order", pinned: []string{"replay", "ghost", "unknown"}, want: []string{"replay"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, "", func(o *Options) {
				o.Registry = adapters.NewRegistry()
				o.Registry.Register(replay.New(""))
				o.Registry.Register(named{replay.New(""), "other"})
				o.Registry.Register(ghost)
				o.Agents, o.WarmAgents = tc.pinned, -1
			})
			c.init(schema.ClientCapabilities{})
			var r schema.NewSessionResponse
			c.must("session/new", schema.NewSessionRequest{Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, &r)
			if got := values(agentSelect(t, r.ConfigOptions)); !slices.Equal(got, tc.want) {
				t.Fatalf("agent select %v, want %v", got, tc.want)
			}
			var set schema.SetSessionConfigOptionResponse
			c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: r.SessionID, ConfigID: "agent", Value: json.RawMessage(`"ghost"`)}, &set)
			sel := agentSelect(t, set.ConfigOptions)
			i := slices.IndexFunc(sel, func(o schema.SessionConfigSelectOption) bool { return o.Value == "ghost" })
			if i < 0 || sel[i].Description == "" {
				t.Fatalf("after switching to ghost the select is %+v; want ghost listed with why it cannot run", sel)
			}
		})
	}
}
