package main

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/conversation/delegation"
)

// parentHost stands for the hub acp that started the agent.
type parentHost struct {
	mu   sync.Mutex
	reqs []delegation.Request
}

func (p *parentHost) Agents() []delegation.AgentInfo { return []delegation.AgentInfo{{Name: "codex"}} }
func (p *parentHost) Delegate(_ context.Context, r delegation.Request, _ delegation.Progress) (delegation.Result, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, r)
	p.mu.Unlock()
	return delegation.Result{Agent: r.Agent, Session: "d1", Answer: "parent ran " + r.Prompt, StopReason: "end_turn"}, nil
}
func (p *parentHost) Continue(context.Context, string, string, time.Duration, delegation.Progress) (delegation.Result, error) {
	return delegation.Result{}, nil
}

// mcpClient runs `hub mcp` in process and connects an MCP client to it.
func mcpClient(t *testing.T) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		realMain(ctx, []string{"mcp"}, inR, outW, io.Discard)
		outW.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		inW.Close()
		cancel()
		<-done
	})
	return cs
}

func delegateText(t *testing.T, cs *mcp.ClientSession, agent string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delegate", Arguments: map[string]any{"agent": agent, "prompt": "list files"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) == 0 {
		return "", res.IsError
	}
	tc, _ := res.Content[0].(*mcp.TextContent) // the answer; a summary follows
	return tc.Text, res.IsError
}

// Started by an agent of hub acp (the environment names its socket), hub
// mcp runs nothing itself: the parent runs the delegate, here an agent
// this machine does not have.
func TestMCP_ChildRunsDelegatesOnItsParent(t *testing.T) {
	isolate(t)
	b, err := delegation.Listen(zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	parent := &parentHost{}
	token, _ := b.Register(parent)
	for k, v := range b.Env(token) {
		t.Setenv(k, v)
	}
	cs := mcpClient(t)
	text, isErr := delegateText(t, cs, "codex")
	if isErr || text != "parent ran list files" {
		t.Fatalf("delegate answered %q (error %v), want the parent's answer", text, isErr)
	}
	parent.mu.Lock()
	defer parent.mu.Unlock()
	if len(parent.reqs) != 1 || parent.reqs[0].Agent != "codex" {
		t.Fatalf("parent got %+v", parent.reqs)
	}
}

// A child whose parent is gone refuses every delegation with why, and
// does not run the agent on its own.
func TestMCP_ChildWithoutItsParentRefuses(t *testing.T) {
	isolate(t)
	t.Setenv(delegation.EnvSocket, t.TempDir()+"/gone.sock")
	t.Setenv(delegation.EnvToken, "x")
	cs := mcpClient(t)
	text, isErr := delegateText(t, cs, "replay")
	if !isErr || !strings.Contains(text, delegation.ErrNoParent.Error()) {
		t.Fatalf("delegate answered %q (error %v), want a tool error naming the missing parent", text, isErr)
	}
}
