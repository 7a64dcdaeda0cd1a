package acp

import (
	"slices"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters/replay"
)

// additionalDirectories reach the agent, on new and on load; relative
// paths are refused.
func TestAdditionalDirectories_ReachTheAgent(t *testing.T) {
	a := &countingAdapter{Adapter: replay.New("")}
	c := countingClient(t, a)
	c.init(schema.ClientCapabilities{})
	cwd, lib := t.TempDir(), t.TempDir()
	var r schema.NewSessionResponse
	c.must("session/new", schema.NewSessionRequest{Cwd: cwd, McpServers: []schema.McpServer{}, AdditionalDirectories: []string{lib}}, &r)
	c.prompt(r.SessionID, "hi")
	if starts := a.Starts(); len(starts) != 1 || !slices.Equal(starts[0].AddDirs, []string{lib}) {
		t.Fatalf("the agent started with %+v, want the additional root %s", starts, lib)
	}
	if _, e := c.call("session/new", schema.NewSessionRequest{Cwd: cwd, McpServers: []schema.McpServer{}, AdditionalDirectories: []string{"lib"}}); e == nil || e.Code != schema.CodeInvalidParams {
		t.Fatalf("a relative additional directory answered %v, want invalid params", e)
	}
}
