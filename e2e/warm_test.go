//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
)

// surfaceTimeout bounds the wait for a warm agent's commands and options:
// a node CLI's start on a loaded CI machine.
const surfaceTimeout = 60 * time.Second

// waitConfigOption waits for a config_option_update whose option id has a
// current value for which ok is true, and returns that option.
func waitConfigOption(t *testing.T, h *hubConn, id string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	var found map[string]any
	_, seen := h.waitUpdate(func(u map[string]any) bool {
		if u["sessionUpdate"] != "config_option_update" {
			return false
		}
		opts, _ := u["configOptions"].([]any)
		for _, o := range opts {
			m, _ := o.(map[string]any)
			if m["id"] == id && ok(m) {
				found = m
				return true
			}
		}
		return false
	}, surfaceTimeout)
	if !seen {
		t.Fatalf("no config_option_update for %s before any prompt\nhub stderr:\n%s", id, e2eTail(h.stderr(), 30))
	}
	return found
}

func optionValues(o map[string]any) []string {
	var out []string
	opts, _ := o["options"].([]any)
	for _, v := range opts {
		m, _ := v.(map[string]any)
		s, _ := m["value"].(string)
		out = append(out, s)
	}
	return out
}

// promptMeta runs one prompt and returns its result's _meta.hub.
func promptMeta(t *testing.T, h *hubConn, sid, text string) map[string]any {
	t.Helper()
	raw, err := h.await(h.start("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": text}}}), "session/prompt", e2ePromptTimeout)
	if err != nil {
		t.Fatalf("prompt: %v\nhub stderr:\n%s", err, e2eTail(h.stderr(), 30))
	}
	var r struct {
		Meta struct {
			Hub map[string]any `json:"hub"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Meta.Hub == nil {
		t.Fatalf("prompt result %s has no _meta.hub", raw)
	}
	return r.Meta.Hub
}

// After session/new, claude is started at once: its slash commands and
// models reach the editor before any prompt, and the first prompt finds
// the agent up.
func TestClaudeHub_WarmStartSurfaceBeforeTheFirstPrompt(t *testing.T) {
	mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Warm hello."})
	defer mock.Close()
	h := startHub(t, claudeHubConfig(t, mock), nil)
	h.initialize(nil)
	sid := h.newSession(t.TempDir())

	if _, ok := h.waitUpdate(func(u map[string]any) bool {
		cmds, _ := u["availableCommands"].([]any)
		return u["sessionUpdate"] == "available_commands_update" && slices.ContainsFunc(cmds, func(c any) bool {
			m, _ := c.(map[string]any)
			return m["name"] == "code-review"
		})
	}, surfaceTimeout); !ok {
		t.Fatalf("claude's /code-review did not reach the editor before a prompt\nhub stderr:\n%s", e2eTail(h.stderr(), 30))
	}
	model := waitConfigOption(t, h, "model", func(o map[string]any) bool { return len(optionValues(o)) > 0 })
	if vals := optionValues(model); !slices.Contains(vals, "opus") || !slices.Contains(vals, "sonnet") || model["currentValue"] != "default" {
		t.Errorf("model option before any prompt = %v; want claude's own list with the running default", model)
	}
	if meta := promptMeta(t, h, sid, "hi"); meta["waitedForAgent"] != false {
		t.Errorf("first prompt _meta.hub = %v; the warm agent should have been up", meta)
	}
	h.close()
}

// codex is warm after session/new, its model select shows the model of
// its own config.toml, and in read-only mode a write becomes a permission
// request whose rejection codex obeys.
func TestCodexHub_ReadOnlyModeAsksAndTheModelComesFromConfig(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Writing g.txt.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_w", "echo no > g.txt")}},
		mockllm.ResponsesTurn{Text: "Understood, not writing."},
	)
	defer mock.Close()
	cfg := codexPlainConfig(t, mock)
	h := startHub(t, cfg, nil)
	h.initialize(nil)
	sid := h.newSession(cwd)

	waitConfigOption(t, h, "model", func(o map[string]any) bool { return o["currentValue"] == "mock-model" })
	mode := waitConfigOption(t, h, "mode", func(o map[string]any) bool { return o["currentValue"] == "auto" })
	if vals := optionValues(mode); !slices.Equal(vals, []string{"read-only", "auto", "full-access"}) {
		t.Errorf("codex modes = %v", vals)
	}
	if _, err := h.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "read-only"}); err != nil {
		t.Fatal(err)
	}
	h.setPermissionHandler(func(map[string]any) string { return "reject_once" })
	meta := promptMeta(t, h, sid, "write g.txt")
	if _, err := os.Stat(filepath.Join(cwd, "g.txt")); !os.IsNotExist(err) {
		t.Fatalf("read-only codex wrote g.txt (stat err %v)", err)
	}
	if n := len(h.permissionRequests()); n == 0 {
		t.Errorf("read-only codex wrote nothing but asked nothing either\nhub stderr:\n%s", e2eTail(h.stderr(), 30))
	}
	if meta["waitedForAgent"] != false {
		t.Errorf("first prompt _meta.hub = %v; codex should have been warm", meta)
	}
	h.close()
}

// claude's AskUserQuestion reaches a client that advertises elicitation
// as elicitation/create, and claude continues with the user's answer.
func TestClaudeHub_AskUserQuestionBecomesElicitation(t *testing.T) {
	questions := `{"questions":[{"question":"Which language should I use?","header":"Language","multiSelect":false,` +
		`"options":[{"label":"Go","description":"static binary"},{"label":"Rust","description":"no GC"}]}]}`
	mock := mockllm.NewAnthropicServer(
		mockllm.AnthropicTurn{Text: "Let me ask.", ToolUses: []mockllm.AnthropicToolUse{{ID: "toolu_ask", Name: "AskUserQuestion", Input: questions}}},
		mockllm.AnthropicTurn{Text: "Going with your choice."},
	)
	defer mock.Close()
	h := startHub(t, claudeHubConfig(t, mock), nil)
	var asked map[string]any
	h.mu.Lock()
	h.elicit = func(params map[string]any) map[string]any {
		asked = params
		return map[string]any{"action": "accept", "content": map[string]any{"0": "Rust"}}
	}
	h.mu.Unlock()
	h.initialize(map[string]any{"elicitation": map[string]any{"form": map[string]any{}}})
	sid := h.newSession(t.TempDir())
	stop, _, err := h.prompt(sid, "pick a language")
	if err != nil || stop != "end_turn" {
		t.Fatalf("stop=%q err=%v\n%s", stop, err, e2eTail(h.stderr(), 30))
	}
	h.mu.Lock()
	got := asked
	h.mu.Unlock()
	if got == nil || got["mode"] != "form" || got["message"] != "Which language should I use?" {
		t.Fatalf("elicitation/create params = %v; want claude's question as a form\n%s", got, e2eTail(h.stderr(), 30))
	}
	reqs := mock.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[len(reqs)-1].Body), "Rust") {
		t.Errorf("claude's next request does not carry the answer Rust")
	}
	h.close()
}

// Switching from claude to another agent and back resumes claude's own
// session: its next request holds the first turn once, and what happened
// while it was away.
func TestClaudeHub_SwitchBackResumesClaudesSession(t *testing.T) {
	mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "First answer."}, mockllm.AnthropicTurn{Text: "Third answer."})
	defer mock.Close()
	script := acpScript(t, acpText("Replay's answer about the parser."), acpTurn)
	cfg := claudeHubConfig(t, mock) + "\n[agents.replay]\ntype = \"replay\"\noptions = { script = " + strconvQuote(script) + " }\n"
	h := startHub(t, cfg, nil)
	h.initialize(nil)
	sid := h.newSession(t.TempDir())
	set := func(agent string) {
		if _, err := h.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "agent", "value": agent}); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct{ agent, prompt string }{{"", "first question"}, {"replay", "second question"}, {"claude", "third question"}} {
		if step.agent != "" {
			set(step.agent)
		}
		if stop, _, err := h.prompt(sid, step.prompt); err != nil || stop != "end_turn" {
			t.Fatalf("%s: stop=%q err=%v\n%s", step.prompt, stop, err, e2eTail(h.stderr(), 30))
		}
	}
	reqs := mock.Requests()
	last := reqs[len(reqs)-1]
	body := string(last.Body)
	if len(last.Messages) < 3 || strings.Count(body, "first question") != 1 || !strings.Contains(body, "Replay's answer about the parser.") || !strings.Contains(body, "third question") {
		t.Fatalf("claude's last request (%d messages): want its own resumed conversation, the first turn once, and what it missed\n%s", len(last.Messages), body)
	}
	h.close()
}
