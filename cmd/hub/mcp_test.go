package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

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

// A hub mcp child lives as long as its agent, with its parent's address in
// its environment: a tmp cleaner removing the parent's socket directory
// does not end its delegation: it asks the parent to make it again.
func TestMCP_ChildDelegatesAfterItsParentsSocketWasRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a loopback port has no file a cleaner could remove")
	}
	isolate(t)
	b, err := delegation.Listen(zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	token, _ := b.Register(&parentHost{})
	env := b.Env(token)
	for k, v := range env {
		t.Setenv(k, v)
	}
	cs := mcpClient(t)
	if text, isErr := delegateText(t, cs, "codex"); isErr {
		t.Fatalf("delegate before: %q", text)
	}
	if err := os.RemoveAll(filepath.Dir(env[delegation.EnvSocket])); err != nil {
		t.Fatal(err)
	}
	if text, isErr := delegateText(t, cs, "codex"); isErr || text != "parent ran list files" {
		t.Fatalf("delegate after the socket was removed answered %q (error %v)", text, isErr)
	}
}

// A hub mcp child started while its parent's socket was gone (its agent
// started the server mid-session) fails its delegation as its parent
// being unreachable, reaches the parent once the parent made the socket
// again (its next prompt does), and from then on asks for it itself.
func TestMCP_ChildStartedAfterItsParentsSocketWasRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a loopback port has no file a cleaner could remove")
	}
	isolate(t)
	b, err := delegation.Listen(zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	token, _ := b.Register(&parentHost{})
	env := b.Env(token)
	for k, v := range env {
		t.Setenv(k, v)
	}
	dir := filepath.Dir(env[delegation.EnvSocket])
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	cs := mcpClient(t)
	if text, isErr := delegateText(t, cs, "codex"); !isErr || !strings.Contains(text, delegation.ErrNoParent.Error()) {
		t.Fatalf("delegate with the socket gone answered %q (error %v), want a tool error naming the missing parent", text, isErr)
	}
	if err := b.Reopen(); err != nil { // as the parent's next prompt does
		t.Fatal(err)
	}
	for _, when := range []string{"after the parent made it again", "after it was removed again"} {
		if text, isErr := delegateText(t, cs, "codex"); isErr || text != "parent ran list files" {
			t.Fatalf("delegate %s answered %q (error %v)", when, text, isErr)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
}

// Standalone, hub mcp's delegate falls back through the config's fallback
// lists: a delegate whose agent crashed is answered by the next one, and
// the summary says so.
func TestMCP_DelegateFallsBackByTheConfig(t *testing.T) {
	root := isolate(t)
	write := func(name, text string) string {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	broken := write("broken.jsonl", `{"fail":"exit status 2"}`+"\n")
	helper := write("helper.jsonl", `{"event":{"type":"text","text":"helper answered"}}`+"\n")
	write(filepath.Join("xdg_config_home", "hub", "config.toml"), "[agents.broken]\ntype = \"replay\"\nscript = '"+broken+
		"'\nfallback = [\"helper\"]\n\n[agents.helper]\ntype = \"replay\"\nscript = '"+helper+"'\n")
	cs := mcpClient(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delegate", Arguments: map[string]any{"agent": "broken", "prompt": "say hi"}})
	if err != nil {
		t.Fatal(err)
	}
	var summary delegation.Result
	if b, _ := json.Marshal(res.StructuredContent); json.Unmarshal(b, &summary) != nil || res.IsError ||
		summary.Agent != "helper" || !slices.Equal(summary.FellBack, []string{"broken crashed"}) || summary.Answer != "helper answered" {
		t.Fatalf("delegate answered %+v (error %v), want helper's answer after broken crashed", res.StructuredContent, res.IsError)
	}
}

// A hub mcp that a delegate's own configuration starts (its environment
// names the chain it works in, not a parent) refuses a delegation back to
// an agent of that chain: delegates through it never loop, nor nest
// deeper than there are agents. Another agent still runs.
func TestMCP_DelegatesOwnHubRefusesLoops(t *testing.T) {
	for _, tc := range []struct {
		chain   string
		loop    bool
		refused bool
	}{
		{chain: "claude,replay", loop: true},
		{chain: "replay", loop: true},
		{chain: "claude"},
		{chain: ""},
		// A name this hub cannot find (a persona of another configuration)
		// would drop its mode and delegates list: every call is refused.
		{chain: "claude,reviewer", refused: true},
		{chain: "nosuch,claude", refused: true},
		{chain: "claude,", refused: true},
	} {
		t.Run(tc.chain, func(t *testing.T) {
			root := isolate(t)
			script := filepath.Join(root, "s.jsonl")
			if err := os.WriteFile(script, []byte(`{"event":{"type":"text","text":"replayed"}}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HUB_REPLAY_SCRIPT", script)
			t.Setenv(delegation.EnvChain, tc.chain)
			text, isErr := delegateText(t, mcpClient(t), "replay")
			switch {
			case tc.refused:
				if !isErr || !strings.Contains(text, delegation.ErrRefused.Error()) {
					t.Fatalf("chain %q: delegate answered %q (error %v); want it refused", tc.chain, text, isErr)
				}
			case tc.loop != (isErr && strings.Contains(text, delegation.ErrLoop.Error())) || (!tc.loop && (isErr || text != "replayed")):
				t.Fatalf("chain %q: delegate answered %q (error %v); want loop refused %v", tc.chain, text, isErr, tc.loop)
			}
		})
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
