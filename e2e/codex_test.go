//go:build e2e && unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
)

// codexHubConfig writes codex's own config (mock provider) into a temp
// CODEX_HOME and returns a hub user config running the pinned codex there
// with approval policy "untrusted", so shell commands ask permission.
func codexHubConfig(t *testing.T, mock *mockllm.ResponsesServer) string {
	t.Helper()
	bin := e2eCLI(t, "codex", "codex")
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(mock.CodexConfig("mock-model", "MOCK_API_KEY")), 0o644); err != nil {
		t.Fatalf("write codex config: %v", err)
	}
	return "default_agent = \"codex\"\n[agents.codex]\ncommand = " + strconvQuote(bin) +
		"\noptions = { approval_policy = \"untrusted\", sandbox = \"danger-full-access\" }\n" +
		"[agents.codex.env]\nCODEX_HOME = " + strconvQuote(home) + "\nMOCK_API_KEY = \"sk-mock\"\n"
}

// codexPlainConfig is codexHubConfig without hub's options for codex: codex
// runs with its own sandbox and approval defaults (and hub's modes).
func codexPlainConfig(t *testing.T, mock *mockllm.ResponsesServer) string {
	return strings.Replace(codexHubConfig(t, mock), "options = { approval_policy = \"untrusted\", sandbox = \"danger-full-access\" }\n", "", 1)
}

// codexExec is a scripted exec_command call (codex's shell tool).
func codexExec(callID, cmd string) mockllm.ResponsesToolCall {
	return mockllm.ResponsesToolCall{CallID: callID, Name: "exec_command", Args: `{"cmd":` + strconvQuote(cmd) + `}`}
}

// codexInputHas reports whether any input item of req carries text.
func codexInputHas(req mockllm.ResponsesRequest, text string) bool {
	for _, item := range req.Input {
		if strings.Contains(inputText(item), text) {
			return true
		}
	}
	return false
}

// inputText is the text of a Responses input item: a function_call_output's
// output, or its message content.
func inputText(item map[string]any) string {
	if s, ok := item["output"].(string); ok {
		return s
	}
	return mockllm.MessageText(item)
}

func TestCodexHub_ToolsPermissionsAndContinuation(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Creating f.txt.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_allow", "echo hi > f.txt")}},
		mockllm.ResponsesTurn{Text: "Created."},
		mockllm.ResponsesTurn{Text: "Trying g.txt.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_reject", "echo no > g.txt")}},
		mockllm.ResponsesTurn{Text: "Understood, not writing."},
	)
	defer mock.Close()
	h := startHub(t, codexHubConfig(t, mock), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)

	h.setPermissionHandler(func(map[string]any) string { return "allow_once" })
	stop, updates, err := h.prompt(sid, "create f.txt")
	if err != nil || stop != "end_turn" {
		t.Fatalf("turn 1: stop=%q err=%v\n%s", stop, err, e2eTail(h.stderr(), 30))
	}
	if got := claudeChunkText(updates); !strings.Contains(got, "Creating f.txt.") || !strings.Contains(got, "Created.") {
		t.Errorf("turn 1 text = %q", got)
	}
	if len(claudeUpdatesOf(updates, "tool_call")) == 0 {
		t.Errorf("turn 1 has no tool_call update: %v", e2eKinds(updates))
	}
	if s := claudeToolStatus(updates, "call_allow"); s != "completed" {
		t.Errorf("allowed tool status = %q; updates: %v", s, updates)
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "f.txt")); string(b) != "hi\n" {
		t.Errorf("f.txt = %q", b)
	}
	if n := len(h.permissionRequests()); n != 1 {
		t.Errorf("permission requests after turn 1 = %d, want 1", n)
	}

	h.setPermissionHandler(func(map[string]any) string { return "reject_once" })
	stop, updates, err = h.prompt(sid, "now g.txt")
	if err != nil || stop != "end_turn" {
		t.Fatalf("turn 2: stop=%q err=%v\n%s", stop, err, e2eTail(h.stderr(), 30))
	}
	if !strings.Contains(claudeChunkText(updates), "Understood, not writing.") {
		t.Errorf("turn 2 text = %q", claudeChunkText(updates))
	}
	if _, err := os.Stat(filepath.Join(cwd, "g.txt")); !os.IsNotExist(err) {
		t.Errorf("rejected command created g.txt (stat err %v)", err)
	}
	if s := claudeToolStatus(updates, "call_reject"); s != "failed" {
		t.Errorf("rejected tool status = %q, want the tool call reported and ended failed; updates: %v", s, updates)
	}
	if n := len(h.permissionRequests()); n != 2 {
		t.Errorf("permission requests after turn 2 = %d, want 2", n)
	}
	reqs := mock.Requests()
	if len(reqs) != 4 {
		t.Fatalf("mock got %d requests, want 4", len(reqs))
	}
	if last := reqs[2]; !codexInputHas(last, "create f.txt") || !codexInputHas(last, "now g.txt") {
		t.Errorf("turn 2 did not continue the codex thread: input %v", last.Input)
	}
	h.close()
}

// codexSleepMarker matches the cmdline of the long command's timeout process.
const codexSleepMarker = "timeout\x0037\x00tail"

// codexWaitStarted waits until some process's cmdline contains marker.
func codexWaitStarted(marker string, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if len(claudeWaitGone(marker, 0)) > 0 {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

func TestCodexHub_CancelMidTool(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Waiting.", ToolCalls: []mockllm.ResponsesToolCall{{CallID: "call_sleep", Name: "exec_command",
			Args: `{"cmd":"timeout 37 tail -f /dev/null; echo done > late.txt","yield_time_ms":60000}`}}},
		mockllm.ResponsesTurn{Text: "Back again."},
	)
	defer mock.Close()
	h := startHub(t, codexHubConfig(t, mock), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)
	h.setPermissionHandler(func(map[string]any) string { return "allow_once" })
	res := h.promptAsync(sid, "sleep")
	if _, ok := h.waitUpdate(func(u map[string]any) bool { return u["toolCallId"] == "call_sleep" }, 2*time.Minute); !ok {
		select {
		case r := <-res:
			t.Fatalf("turn ended before the tool call: stop=%q err=%v", r.StopReason, r.Err)
		default:
		}
		t.Fatalf("no tool call before cancel\n%s", e2eTail(h.stderr(), 30))
	}
	if !codexWaitStarted(codexSleepMarker, 30*time.Second) {
		t.Fatalf("the long command never started\n%s", e2eTail(h.stderr(), 30))
	}
	h.cancelAndReap(t, sid, res, codexSleepMarker, 10*time.Second)
	if _, err := os.Stat(filepath.Join(cwd, "late.txt")); !os.IsNotExist(err) {
		t.Errorf("cancelled command ran to completion (stat err %v)", err)
	}
	stop, updates, err := h.prompt(sid, "are you there")
	if err != nil || stop != "end_turn" || !strings.Contains(claudeChunkText(updates), "Back again.") {
		t.Errorf("prompt after cancel: stop=%q err=%v text=%q", stop, err, claudeChunkText(updates))
	}
	h.close() // asserts the hub exits and leaves no process behind
}

// With codex's own sandbox (workspace-write), a temp CODEX_HOME (where codex
// makes no codex-linux-sandbox alias) and bubblewrap 0.8 installed (no
// --argv0), a command codex runs in its sandbox writes in the workspace,
// and one its sandbox refuses, which app-server announces with no item,
// shows as a failed tool call carrying codex's message.
func TestCodexHub_OwnSandboxRunsAndRefusalsFail(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Writing f.txt.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_in", "echo hi > f.txt")}},
		mockllm.ResponsesTurn{Text: "Written."},
		mockllm.ResponsesTurn{Text: "Writing outside.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_out", "touch /etc/hub-sandbox-probe")}},
		mockllm.ResponsesTurn{Text: "Refused."},
	)
	defer mock.Close()
	h := startHub(t, strings.Replace(codexPlainConfig(t, mock), "[agents.codex]\n", "[agents.codex]\noptions = { approval_policy = \"never\" }\n", 1), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)
	stop, updates, err := h.prompt(sid, "write f.txt")
	if err != nil || stop != "end_turn" {
		t.Fatalf("turn 1: stop=%q err=%v\n%s", stop, err, e2eTail(h.stderr(), 30))
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "f.txt")); string(b) != "hi\n" {
		t.Errorf("f.txt = %q; updates %v", b, updates)
	}
	if s := claudeToolStatus(updates, "call_in"); s != "completed" {
		t.Errorf("sandboxed write in the workspace: status %q; updates %v", s, updates)
	}
	_, updates, err = h.prompt(sid, "write outside")
	if err != nil {
		t.Fatal(err)
	}
	if s := claudeToolStatus(updates, "call_out"); s != "failed" {
		t.Errorf("refused write: status %q; updates %v", s, updates)
	}
	if !strings.Contains(fmt.Sprint(updates), "Read-only file system") {
		t.Errorf("the refused call does not carry codex's message; updates %v", updates)
	}
	h.close()
}
