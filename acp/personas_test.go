package acp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/personas"
)

// Personas follow the agents in the select, each described with what it
// is for and the agent it runs on; an untrusted one is not offered.
func TestAgentSelect_ListsPersonasAfterTheAgents(t *testing.T) {
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(replay.New(""))
		o.Registry.Register(named{replay.New(""), "zeta"})
		o.Registry.Register(&personas.Adapter{P: personas.Persona{Name: "auditor", Description: "Audits a change.\nMore.", Trusted: true}, Backend: replay.New("")})
		o.Registry.Register(&personas.Adapter{P: personas.Persona{Name: "evil", Description: "d", Untrusted: "not trusted"}, Backend: replay.New("")})
		o.WarmAgents = -1
	})
	c.init(schema.ClientCapabilities{})
	var r schema.NewSessionResponse
	c.must("session/new", schema.NewSessionRequest{Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, &r)
	sel := agentSelect(t, r.ConfigOptions)
	if got := values(sel); !slices.Equal(got, []string{"replay", "zeta", "auditor"}) {
		t.Fatalf("agent select %v, want the agents then the trusted persona", got)
	}
	if d := sel[2].Description; !strings.Contains(d, "Audits a change.") || strings.Contains(d, "More.") || !strings.Contains(d, "replay") {
		t.Errorf("persona description %q, want its first line and its backend", d)
	}
	// Choosing it mid-session is an agent switch like any other.
	var set schema.SetSessionConfigOptionResponse
	c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: r.SessionID, ConfigID: "agent", Value: json.RawMessage(`"auditor"`)}, &set)
	for _, o := range set.ConfigOptions {
		if o.ID == "agent" && fmt.Sprint(o.CurrentValue) != "auditor" {
			t.Errorf("agent after the switch = %v", o.CurrentValue)
		}
	}
}
