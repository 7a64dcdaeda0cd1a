//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubdev/hub/conversation/delegation"
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

// A delegate whose agent crashed costs one turn, not the delegate session:
// the crashed agent is gone, and the continue tool starts the agent again
// under the same session instead of failing on the dead one.
func TestMCP_CrashedDelegateRestartsOnTheFollowUp(t *testing.T) {
	root := isolate(t)
	cwd, pidFile := fakeAgentConfig(t, root, "crash-once")
	chdir(t, cwd)
	cs := mcpClient(t)
	call := func(tool string, args map[string]any) (delegation.Result, bool) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var r delegation.Result
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &r)
		return r, res.IsError
	}
	first, isErr := call("delegate", map[string]any{"agent": "fake", "prompt": "go"})
	if !isErr || first.Error == "" || first.Session == "" {
		t.Fatalf("the crashed delegate answered %+v (error %v)", first, isErr)
	}
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatalf("the crashed agent's pid %q: %v", b, err)
	}
	proctest.WaitGone(t, pid)
	next, isErr := call("continue", map[string]any{"session": first.Session, "prompt": "again"})
	if isErr || next.Session != first.Session || next.Answer != "partial answer" {
		t.Fatalf("the follow-up answered %+v (error %v), want the restarted agent's answer", next, isErr)
	}
}
