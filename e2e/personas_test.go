//go:build e2e && unix

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/adapters/gemini"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/personas"
)

// hub run --agent PERSONA on the real codex: the persona's prompt reaches
// codex's model request, its model is the request's, and with tools that
// never write codex runs read-only, so a command the model asks for under
// --approve all is refused by the persona's gate and never runs.
func TestRunCodexPersona_PromptModelAndReadOnly(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Creating f.txt.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_w", "echo hi > f.txt")}},
		mockllm.ResponsesTurn{Text: "Could not."},
	)
	defer mock.Close()
	home := t.TempDir()
	agents := filepath.Join(home, ".config", "hub", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "reader.md"), []byte("---\nname: reader\ndescription: Reads only.\nagent: codex\n"+
		"model: persona-model\ntools: Read, Grep\n---\nYou are the reader persona under test.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runHub(t, home, codexHubConfig(t, mock), "", "--agent", "reader", "--cwd", cwd, "--approve", "all", "--format", "jsonl", "create f.txt")
	if r.code != 0 && r.code != 6 {
		t.Fatalf("exit %d\n%s", r.code, e2eTail(r.stderr, 30))
	}
	if _, err := os.Stat(filepath.Join(cwd, "f.txt")); !os.IsNotExist(err) {
		t.Errorf("the read-only persona's command ran (stat err %v)", err)
	}
	reqs := mock.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	first := reqs[0]
	if !codexInputHas(first, "reader persona under test") && !strings.Contains(first.Instructions, "reader persona under test") {
		t.Errorf("the persona's prompt is not in codex's request: %s", first.Body)
	}
	if first.Model != "persona-model" {
		t.Errorf("model = %q", first.Model)
	}
}

// A persona on the real gemini (an ACP agent): its prompt reaches the
// model request ahead of the user's, and a command it does not list is
// refused by its gate without reaching the front end.
func TestGeminiPersona_PromptAndRefusedTool(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	mock := mockllm.NewGeminiServer(geminiWriteTurn(), mockllm.GeminiTurn{Text: "Not written."})
	defer mock.Close()
	home := t.TempDir()
	t.Setenv("HOME", home)
	geminiSettings(t, home)
	p, err := personas.Parse("reader.md", []byte("---\nname: reader\ndescription: Reads.\ntools: Read, Grep\n---\nYou are the gemini reader persona under test.\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Trusted = true
	backend := gemini.New(config.AgentConfig{Command: config.Command{bin, "--acp", "--skip-trust", "-m", geminiModel}, Env: geminiEnv(mock)}, "e2e", zerolog.New(os.Stderr))
	cwd := t.TempDir()
	var asked []string
	gate, err := conversation.NewGate(conversation.GateOptions{Cwd: cwd, Answerer: conversation.AnswerFunc(
		func(_ context.Context, q conversation.Question) conversation.Reply {
			asked = append(asked, q.Request.Tool.Title)
			return conversation.Reply{Decision: conversation.Allow(q.Request), By: "user"}
		})})
	if err != nil {
		t.Fatal(err)
	}
	s, err := (&personas.Adapter{P: p, Backend: backend}).Start(context.Background(), adapters.SessionOptions{Cwd: cwd, Permission: gate.Ask})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The gate decides within a turn only (its decisions are the turn's events).
	if _, err := conversation.RunTurn(context.Background(), conversation.TurnSpec{Agent: "reader", Session: s, Prompt: adapters.TextPrompt("create the file"), Gate: gate}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cwd, "created-by-tool.txt")); !os.IsNotExist(err) {
		t.Errorf("the unlisted command ran (stat err %v)", err)
	}
	if len(asked) != 0 {
		t.Errorf("the front end was asked %q", asked)
	}
	var seen bool
	for _, r := range mock.ModelRequests() {
		seen = seen || strings.Contains(string(r.Body), "gemini reader persona under test")
	}
	if !seen {
		t.Error("no model request carried the persona's prompt")
	}
}

// A Claude Code subagent file run as a hub persona on the real claude:
// its prompt reaches the model request's system prompt, its model is the
// request's, and claude offers none of the tools it does not list.
func TestClaudePersona_PromptModelAndTools(t *testing.T) {
	mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Reviewed."})
	defer mock.Close()
	bin := e2eCLI(t, "claude", "claude")
	t.Setenv("HOME", t.TempDir())
	p, err := personas.Parse("code-reviewer.md", []byte("---\nname: code-reviewer\ndescription: Reviews code.\ntools: Read, Grep, Glob\n"+
		"model: claude-persona-test\n---\nYou are the persona under test; answer tersely.\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Trusted = true
	a := &personas.Adapter{P: p, Backend: claude.New(config.AgentConfig{Command: config.Command{bin}, Env: claudeEnv(mock)}, zerolog.New(os.Stderr))}
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("review"))
	if err != nil {
		t.Fatal(err)
	}
	evs := claudeDrain(t, ch, func(p *adapters.PermissionRequest) { p.Respond(adapters.PermissionDecision{Kind: adapters.RejectOnce}) })
	if !strings.Contains(claudeText(evs), "Reviewed.") {
		t.Fatalf("events: %s", claudeDump(t, evs))
	}
	var main *mockllm.AnthropicRequest
	for _, r := range mock.Requests() {
		if strings.Contains(string(r.System), "persona under test") {
			main = &r
		}
	}
	if main == nil {
		t.Fatalf("no model request carried the persona's prompt")
	}
	if main.Model != "claude-persona-test" {
		t.Errorf("model = %q", main.Model)
	}
	var names []string
	for _, tl := range main.Tools {
		n, _ := tl["name"].(string)
		names = append(names, n)
		switch n {
		case "Edit", "Write", "Bash", "WebFetch", "MultiEdit", "NotebookEdit":
			t.Errorf("claude offered %s, which the persona does not list", n)
		}
	}
	t.Logf("offered: %v", names)
}
