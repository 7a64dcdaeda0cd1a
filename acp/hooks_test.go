package acp

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// hub acp observes a CLI agent's Event stream: the turn's hooks run before
// the prompt is answered, and a hook that fails is said in the session.
func TestSession_HooksObserveCLIAgent(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	h, err := hooks.New(map[string][]config.HookConfig{
		"PostToolUse": {{Command: proctest.ShellCommand("stdin>>:" + log), Matcher: "read"}},
		"Stop":        {{Command: proctest.ShellCommand("err:notifier down\n", "exit:1")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, scriptFile(t,
		`{"event":{"type":"tool_call","tool":{"id":"t","name":"Read","title":"Read a.go","kind":"read","status":"pending","rawInput":{"file_path":"a.go"}}}}`,
		`{"event":{"type":"tool_update","tool":{"id":"t","status":"completed","content":[{"type":"text","text":"package a"}]}}}`,
		`{"event":{"type":"text","text":"read it"}}`),
		func(o *Options) { o.Settings = everywhere(Settings{Hooks: h}) })
	sid, cwd := c.start(t)
	if stop := c.prompt(sid, "read a.go"); stop != "end_turn" {
		t.Fatalf("stop %s", stop)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var post hooks.Input
	if err := json.Unmarshal(b, &post); err != nil {
		t.Fatalf("log %q: %v", b, err)
	}
	if post.Event != hooks.PostToolUse || post.Session != sid || post.Cwd != cwd || post.Agent != "replay" || post.Output != "package a" ||
		string(post.Input) != `{"file_path":"a.go"}` {
		t.Fatalf("PostToolUse input %+v", post)
	}
	var said strings.Builder
	for _, u := range c.updates(sid) {
		if u.AgentMessageChunk != nil {
			said.WriteString(u.AgentMessageChunk.Content.Text)
		}
	}
	if !strings.Contains(said.String(), "hooks.Stop[0]") || !strings.Contains(said.String(), "notifier down") {
		t.Fatalf("the session said %q", said.String())
	}
	if n := len(bufioLines(b)); n != 1 {
		t.Fatalf("PostToolUse ran %d times", n)
	}
}

func bufioLines(b []byte) []string {
	var out []string
	for sc := bufio.NewScanner(strings.NewReader(string(b))); sc.Scan(); {
		if sc.Text() != "" {
			out = append(out, sc.Text())
		}
	}
	return out
}

// A UserPromptSubmit hook that blocks keeps the prompt from a CLI agent:
// the turn fails with the hook's reason and the agent says nothing.
// A prompt a hook blocked is kept from the history too, so no later agent
// gets it in its briefing (nor does session/load replay it).
func TestSession_BlockedPromptIsKeptFromTheBriefing(t *testing.T) {
	h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("exitifstdin:SECRET:2:no secrets")}}})
	if err != nil {
		t.Fatal(err)
	}
	second := &forgetful{instructions: true}
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"done"}}`), func(o *Options) {
		o.Settings = everywhere(Settings{Hooks: h})
		o.Registry.Register(renamed{second, "second"})
	})
	sid, _ := c.start(t)
	c.prompt(sid, "hello")
	if _, e := c.call("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("my SECRET")}}); e == nil {
		t.Fatal("the hook did not block the prompt")
	}
	c.prompt(sid, "and then")
	switchTo(c, sid, "second")
	c.prompt(sid, "go on")
	second.mu.Lock()
	brief := second.instr[0]
	second.mu.Unlock()
	if !strings.Contains(brief, "hello") || strings.Contains(brief, "SECRET") {
		t.Fatalf("the second agent's briefing:\n%s", brief)
	}
	c.must("session/close", map[string]any{"sessionId": sid}, nil)
	c.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, nil)
	for _, u := range c.updates(sid) {
		if u.UserMessageChunk != nil && strings.Contains(u.UserMessageChunk.Content.Text, "SECRET") {
			t.Fatal("the history keeps the blocked prompt")
		}
	}
}

// A prompt blocked right after a switch to an agent that takes the
// briefing with its first prompt does not use the briefing up: the next
// prompt the agent gets carries it. The hooks judge the user's prompt, as
// in hub run, not hub's briefing (here holding a word they block).
func TestSession_BlockedPromptKeepsTheBriefingForTheNext(t *testing.T) {
	h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("exitifstdin:SECRET:2:no secrets")}}})
	if err != nil {
		t.Fatal(err)
	}
	second := &forgetful{}
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"the SECRET stays in .env"}}`), func(o *Options) {
		o.Settings = everywhere(Settings{Hooks: h})
		o.Registry.Register(renamed{second, "second"})
	})
	sid, _ := c.start(t)
	c.prompt(sid, "hello")
	switchTo(c, sid, "second")
	if _, e := c.call("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("my SECRET")}}); e == nil {
		t.Fatal("the hook did not block the prompt")
	}
	c.prompt(sid, "go on")
	if _, prompts := second.seen(); len(prompts) != 1 || !strings.Contains(prompts[0], "hello") || !strings.HasSuffix(prompts[0], "go on") {
		t.Fatalf("the second agent's prompts: %q, want one briefed with the conversation so far", prompts)
	}
}

// The session says the agent was given the conversation it missed with
// the prompt that gave it, not with one a hook blocked.
func TestSession_BlockedPromptDoesNotSayTheBriefingWent(t *testing.T) {
	h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("exitifstdin:SECRET:2:no secrets")}}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"done"}}`), func(o *Options) {
		o.Settings = everywhere(Settings{Hooks: h})
		o.Registry.Register(renamed{&forgetful{}, "second"})
	})
	sid, _ := c.start(t)
	c.prompt(sid, "hello")
	switchTo(c, sid, "second")
	thoughts := func() (n int) {
		for _, u := range c.updates(sid) {
			if u.AgentThoughtChunk != nil {
				n++
			}
		}
		return n
	}
	before := thoughts()
	if _, e := c.call("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("my SECRET")}}); e == nil {
		t.Fatal("the hook did not block the prompt")
	}
	if n := thoughts() - before; n != 0 {
		t.Fatalf("%d thoughts with the blocked prompt, want none", n)
	}
	c.prompt(sid, "go on")
	if n := thoughts() - before; n != 1 {
		t.Fatalf("%d thoughts with the prompt that went, want the briefing's", n)
	}
}

func TestSession_UserPromptSubmitBlocksCLIPrompt(t *testing.T) {
	h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("err:no secrets in prompts\n", "exit:2")}}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"leaked"}}`), func(o *Options) { o.Settings = everywhere(Settings{Hooks: h}) })
	sid, _ := c.start(t)
	_, rpcErr := c.call("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("my key is sk-1")}})
	if rpcErr == nil || !strings.Contains(rpcErr.Message, "no secrets in prompts") {
		t.Fatalf("prompt answered %v, want the hook's reason", rpcErr)
	}
	for _, u := range c.updates(sid) {
		if u.AgentMessageChunk != nil && strings.Contains(u.AgentMessageChunk.Content.Text, "leaked") {
			t.Fatal("the agent answered a blocked prompt")
		}
	}
}
