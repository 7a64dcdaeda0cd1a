package acp

import (
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation/delegation"
)

// The session's agent hears the delegation chain it roots (EnvChain), as
// a delegate does: a hub mcp of its own configuration (not hub's, which
// reaches this session) refuses a delegation back to it, and a persona's
// plan mode and delegates list bind that hub mcp's delegates.
func TestSession_AgentHearsTheChainItRoots(t *testing.T) {
	a := &countingAdapter{Adapter: replay.New("")}
	c := countingClient(t, a)
	c.init(schema.ClientCapabilities{})
	var r schema.NewSessionResponse
	c.must("session/new", schema.NewSessionRequest{Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, &r)
	c.prompt(r.SessionID, "hi")
	if starts := a.Starts(); len(starts) != 1 || starts[0].Env[delegation.EnvChain] != a.Name() {
		t.Fatalf("the agent started with %+v, want %s=%s", starts, delegation.EnvChain, a.Name())
	}
}
