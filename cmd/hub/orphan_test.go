//go:build linux

package main

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// A delegate turn cancelled (the MCP client withdrew its call) whose agent
// ignores session/cancel is stuck: hub mcp stops that agent and the child
// it started once the grace period ends, as hub acp and hub run do, and
// does not leave them running for as long as hub mcp lives.
func TestMCP_CancelledDelegateThatIgnoresTheCancelIsStopped(t *testing.T) {
	root := isolate(t)
	cwd, pidFile := fakeAgentConfig(t, root, "ignore-cancel")
	pidFIFO(t, pidFile)
	chdir(t, cwd)
	cs := mcpClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delegate", Arguments: map[string]any{"agent": "fake", "prompt": "go"}})
		called <- err
	}()
	agent, child := waitPIDs(t, pidFile)
	cancel()
	if err := <-called; err == nil {
		t.Fatal("the withdrawn call answered")
	}
	for _, pid := range []int{agent, child} {
		proctest.WaitGone(t, pid)
	}
}
