//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
)

// delegationConfig runs real claude as the root agent and real codex as
// the delegate, each against its mock, with delegation on in hub acp.
func delegationConfig(t *testing.T, claudeMock *mockllm.AnthropicServer, codexMock *mockllm.ResponsesServer) string {
	_, codexTables, _ := strings.Cut(codexHubConfig(t, codexMock), "\n")
	// Without tool search, claude offers MCP tools in every request, so
	// the scripted model can call hub's delegate tool by name.
	return claudeHubConfig(t, claudeMock) + "ENABLE_TOOL_SEARCH = \"false\"\n" + codexTables + "[acp]\ndelegation = true\n"
}

// delegateCall is claude's scripted call of hub's delegate tool.
func delegateCall(prompt string) mockllm.AnthropicTurn {
	in, _ := json.Marshal(map[string]string{"agent": "codex", "prompt": prompt})
	return mockllm.AnthropicTurn{Text: "Asking codex.", ToolUses: []mockllm.AnthropicToolUse{
		{ID: "toolu_delegate", Name: mockllm.MCPTool("hub", "delegate"), Input: string(in)}}}
}

// namesCodex says a permission request is codex's, put to the editor by
// hub on the root session.
func namesCodex(p map[string]any) bool {
	tc, _ := p["toolCall"].(map[string]any)
	title, _ := tc["title"].(string)
	return strings.HasPrefix(title, "codex: ")
}

// toolResultText is the text of the tool_result blocks of claude's request.
func toolResultText(req mockllm.AnthropicRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		blocks, _ := m["content"].([]any)
		for _, bl := range blocks {
			if bm, ok := bl.(map[string]any); ok && bm["type"] == "tool_result" {
				raw, _ := json.Marshal(bm["content"])
				b.Write(raw)
			}
		}
	}
	return b.String()
}

// Real claude calls hub's delegate tool with agent = codex; real codex
// runs its shell tool. codex's permission request reaches the ACP client
// naming codex, a rejection stops its command, and claude reads codex's
// answer as the tool's result.
func TestDelegation_ClaudeDelegatesToCodexThroughHub(t *testing.T) {
	cwd := t.TempDir()
	claudeMock := mockllm.NewAnthropicServer(delegateCall("create f.txt"), mockllm.AnthropicTurn{Text: "codex did not create it."})
	defer claudeMock.Close()
	codexMock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Creating f.txt.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_f", "echo hi > f.txt")}},
		mockllm.ResponsesTurn{Text: "The user refused; f.txt was not created."})
	defer codexMock.Close()
	h := startHub(t, delegationConfig(t, claudeMock, codexMock), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)
	h.setPermissionHandler(func(p map[string]any) string {
		if namesCodex(p) {
			return "reject_once"
		}
		return "allow_once" // claude's own call of the delegate tool
	})
	stop, updates, err := h.prompt(sid, "have codex create f.txt")
	if err != nil || stop != "end_turn" {
		t.Fatalf("turn: stop=%q err=%v\n%s", stop, err, e2eTail(h.stderr(), 40))
	}
	var codexAsked int
	for _, p := range h.permissionRequests() {
		if namesCodex(p) {
			codexAsked++
		}
	}
	if codexAsked != 1 {
		t.Errorf("%d permission requests name codex, want 1: %v", codexAsked, h.permissionRequests())
	}
	if _, err := os.Stat(filepath.Join(cwd, "f.txt")); !os.IsNotExist(err) {
		t.Errorf("codex's rejected command created f.txt (stat err %v)", err)
	}
	var shown bool
	for _, u := range claudeUpdatesOf(updates, "tool_call") {
		if title, _ := u["title"].(string); strings.HasPrefix(title, "codex: ") {
			shown = true
		}
	}
	if !shown {
		t.Errorf("codex's tool call is not shown in the root session: %v", e2eKinds(updates))
	}
	if s := claudeToolStatus(updates, "toolu_delegate"); s != "completed" {
		t.Errorf("claude's delegate call ended %q", s)
	}
	reqs := claudeMock.Requests()
	if len(reqs) != 2 || !strings.Contains(toolResultText(reqs[1]), "f.txt was not created") {
		t.Fatalf("claude did not read codex's answer: %d requests; tool results %s", len(reqs), toolResultText(reqs[len(reqs)-1]))
	}
	if got := claudeChunkText(updates); !strings.Contains(got, "codex did not create it.") {
		t.Errorf("root answer %q", got)
	}
	h.close() // asserts hub exits and leaves no process behind
}

// Real claude keeps its `hub mcp` child, with hub acp's socket address in
// its environment, across turns: a tmp cleaner emptying the directory the
// socket lives in between two turns does not stop the second delegation.
func TestDelegation_SurvivesTheSocketRemovedBetweenTurns(t *testing.T) {
	runtimeDir, err := os.MkdirTemp("/tmp", "e2e-run-") // short: a socket path has 104 bytes on macOS
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(runtimeDir)
	second := delegateCall("say two")
	second.ToolUses[0].ID = "toolu_delegate2"
	claudeMock := mockllm.NewAnthropicServer(delegateCall("say one"), mockllm.AnthropicTurn{Text: "First done."},
		second, mockllm.AnthropicTurn{Text: "Second done."})
	defer claudeMock.Close()
	codexMock := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "Answer alpha."}, mockllm.ResponsesTurn{Text: "Answer bravo."})
	defer codexMock.Close()
	h := startHub(t, delegationConfig(t, claudeMock, codexMock), []string{"XDG_RUNTIME_DIR=" + runtimeDir, "TMPDIR=" + runtimeDir}) // where hub from before XDG_RUNTIME_DIR put it too
	h.initialize(nil)
	sid := h.newSession(t.TempDir())
	h.setPermissionHandler(func(map[string]any) string { return "allow_once" })
	for i, prompt := range []string{"have codex say one", "have codex say two"} {
		if i == 1 {
			socks, _ := filepath.Glob(filepath.Join(runtimeDir, "hub-d-*"))
			if len(socks) != 1 {
				t.Fatalf("socket directories: %v, want one", socks)
			}
			if err := os.RemoveAll(socks[0]); err != nil {
				t.Fatal(err)
			}
		}
		if stop, _, err := h.prompt(sid, prompt); err != nil || stop != "end_turn" {
			t.Fatalf("turn %d: stop=%q err=%v\n%s", i+1, stop, err, e2eTail(h.stderr(), 40))
		}
	}
	reqs := claudeMock.Requests()
	if len(reqs) != 4 || !strings.Contains(toolResultText(reqs[3]), "Answer bravo.") {
		t.Fatalf("claude did not read codex's second answer: %d requests; tool results %s", len(reqs), toolResultText(reqs[len(reqs)-1]))
	}
	h.close() // asserts hub exits and leaves no process behind
}

// Cancelling the root turn while codex runs a command for claude ends
// the delegate, its command and every process of the chain.
func TestDelegation_CancelDuringTheDelegateLeavesNoProcess(t *testing.T) {
	cwd := t.TempDir()
	claudeMock := mockllm.NewAnthropicServer(delegateCall("wait for the job"), mockllm.AnthropicTurn{Text: "Back."})
	defer claudeMock.Close()
	const marker = "timeout\x0043\x00tail"
	codexMock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Waiting.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_wait", "timeout 43 tail -f /dev/null")}},
		mockllm.ResponsesTurn{Text: "Done waiting."})
	defer codexMock.Close()
	h := startHub(t, delegationConfig(t, claudeMock, codexMock), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)
	h.setPermissionHandler(func(map[string]any) string { return "allow_once" })
	res := h.promptAsync(sid, "have codex wait")
	if !codexWaitStarted(marker, 2*time.Minute) {
		select {
		case r := <-res:
			t.Fatalf("turn ended before codex's command started: stop=%q err=%v\n%s", r.StopReason, r.Err, e2eTail(h.stderr(), 40))
		default:
		}
		t.Fatalf("codex's command never started\n%s", e2eTail(h.stderr(), 40))
	}
	h.cancelAndReap(t, sid, res, marker, 10*time.Second)
	h.close() // asserts hub exits and leaves no process behind
}
