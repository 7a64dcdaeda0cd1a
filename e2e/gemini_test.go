//go:build e2e && unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/gemini"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

const geminiModel = "gemini-2.5-flash"

// geminiEnv points gemini at the mock (clis.md §3.6).
func geminiEnv(mock *mockllm.GeminiServer) map[string]string {
	return map[string]string{
		"GEMINI_API_KEY":           "mock-key",
		"GOOGLE_GEMINI_BASE_URL":   mock.URL,
		"GEMINI_CLI_NO_RELAUNCH":   "true",
		"GEMINI_TELEMETRY_ENABLED": "false",
	}
}

// geminiSettings pins the api-key auth type (else 0.61 exits 41 with a
// custom base URL) under home. It leaves the shell alone: hub itself must
// pick the plain shell, whose output reaches ACP clients (0.61's pty shell
// reports none).
func geminiSettings(t *testing.T, home string) {
	t.Helper()
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"disableAutoUpdate":true},"privacy":{"usageStatisticsEnabled":false}}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

func geminiHubCfg(bin string, mock *mockllm.GeminiServer) string {
	var env []string
	for k, v := range geminiEnv(mock) {
		env = append(env, fmt.Sprintf("%s = %q", k, v))
	}
	return fmt.Sprintf("default_agent = \"gemini\"\n[agents.gemini]\ncommand = [%q, \"--acp\", \"--skip-trust\", \"-m\", %q]\nenv = { %s }\n",
		bin, geminiModel, strings.Join(env, ", "))
}

// geminiStartHub returns the hub, a session and the session's directory.
func geminiStartHub(t *testing.T, mock *mockllm.GeminiServer) (*hubConn, string, string) {
	t.Helper()
	bin := e2eCLI(t, "gemini", "gemini")
	h := startHub(t, geminiHubCfg(bin, mock), nil)
	geminiSettings(t, h.home)
	h.initialize(map[string]any{})
	cwd := t.TempDir()
	return h, h.newSession(cwd), cwd
}

// geminiToolResult returns the JSON of the first completed tool_call_update
// whose content or rawOutput carries want, "" when none does.
func geminiToolResult(ups []map[string]any, want string) string {
	for _, u := range claudeUpdatesOf(ups, "tool_call_update") {
		if u["status"] != "completed" {
			continue
		}
		out, _ := json.Marshal(map[string]any{"content": u["content"], "rawOutput": u["rawOutput"]})
		if strings.Contains(string(out), want) {
			return string(out)
		}
	}
	return ""
}

func geminiToolTurn() mockllm.GeminiTurn {
	return mockllm.GeminiTurn{Text: "Running it.", ToolCalls: []mockllm.GeminiToolCall{
		{Name: "run_shell_command", Args: `{"command":"echo hello-from-tool","description":"greet"}`}}}
}

// geminiWriteTurn asks for a side-effecting command: gemini auto-approves
// read-only ones such as echo, so only this one reaches the editor.
func geminiWriteTurn() mockllm.GeminiTurn {
	return mockllm.GeminiTurn{Text: "Writing it.", ToolCalls: []mockllm.GeminiToolCall{
		{Name: "run_shell_command", Args: `{"command":"touch created-by-tool.txt","description":"create a file"}`}}}
}

func TestGemini_DirectAdapter(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	mock := mockllm.NewGeminiServer(mockllm.GeminiTurn{Thought: "thinking", Text: "Hello from mock."})
	defer mock.Close()
	home := t.TempDir()
	t.Setenv("HOME", home)
	geminiSettings(t, home)
	a := gemini.New(config.AgentConfig{Command: config.Command{bin, "--acp", "--skip-trust", "-m", geminiModel}, Env: geminiEnv(mock)}, "e2e", zerolog.New(os.Stderr))
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("say hello"))
	if err != nil {
		t.Fatal(err)
	}
	var text, thought strings.Builder
	var last adapters.Event
	for ev := range ch {
		switch ev.Type {
		case adapters.EventText:
			text.WriteString(ev.Text)
		case adapters.EventThought:
			thought.WriteString(ev.Text)
		}
		last = ev
	}
	if text.String() != "Hello from mock." || last.StopReason != adapters.StopEndTurn {
		t.Fatalf("text=%q thought=%q last=%+v", text.String(), thought.String(), last)
	}
}

func TestGemini_TextThroughHub(t *testing.T) {
	mock := mockllm.NewGeminiServer(mockllm.GeminiTurn{Text: "Hello from mock."})
	defer mock.Close()
	h, sid, _ := geminiStartHub(t, mock)
	stop, ups, err := h.prompt(sid, "say hello")
	if err != nil || stop != "end_turn" || e2eText(ups) != "Hello from mock." {
		t.Fatalf("stop=%q err=%v text=%q\n%s", stop, err, e2eText(ups), e2eTail(h.stderr(), 20))
	}
	// gemini reports its token counts only in the result's _meta.quota.
	usage := claudeUpdatesOf(ups, "usage_update")
	if len(usage) == 0 || usage[0]["used"].(float64) <= 0 || usage[0]["size"].(float64) <= 0 {
		t.Errorf("gemini's token counts did not reach usage_update: %v", usage)
	}
}

func TestGemini_ToolAllowedAndSecondPrompt(t *testing.T) {
	mock := mockllm.NewGeminiServer(geminiToolTurn(), mockllm.GeminiTurn{Text: "It printed hello-from-tool."},
		mockllm.GeminiTurn{Text: "Second answer."})
	defer mock.Close()
	h, sid, _ := geminiStartHub(t, mock)
	h.setPermissionHandler(func(map[string]any) string { return "allow_once" })
	stop, ups, err := h.prompt(sid, "run echo")
	if err != nil || stop != "end_turn" {
		t.Fatalf("stop=%q err=%v\n%s", stop, err, e2eTail(h.stderr(), 20))
	}
	kinds := strings.Join(e2eKinds(ups), " ")
	if !strings.Contains(kinds, "tool_call") || !strings.Contains(e2eText(ups), "It printed hello-from-tool.") {
		t.Fatalf("kinds=%s text=%q", kinds, e2eText(ups))
	}
	if geminiToolResult(ups, "hello-from-tool") == "" {
		t.Errorf("no completed tool_call_update carried the tool output to the client (hub must start gemini with the plain shell): %v",
			claudeUpdatesOf(ups, "tool_call_update"))
	}
	reqs := mock.ModelRequests()
	if len(reqs) < 2 || !strings.Contains(fmt.Sprint(geminiFunctionResponses(reqs[1])), "hello-from-tool") {
		t.Fatalf("tool output did not reach the model: %+v", reqs)
	}
	stop, ups, err = h.prompt(sid, "again")
	if err != nil || stop != "end_turn" || e2eText(ups) != "Second answer." {
		t.Fatalf("second prompt stop=%q err=%v text=%q", stop, err, e2eText(ups))
	}
	if reqs := mock.ModelRequests(); len(reqs[len(reqs)-1].Contents) < 3 {
		t.Fatalf("second prompt lost the history: %d contents", len(reqs[len(reqs)-1].Contents))
	}
}

func TestGemini_PermissionRejectedStopsTool(t *testing.T) {
	mock := mockllm.NewGeminiServer(geminiWriteTurn(), mockllm.GeminiTurn{Text: "Okay, not running it."})
	defer mock.Close()
	h, sid, cwd := geminiStartHub(t, mock)
	h.setPermissionHandler(func(map[string]any) string { return "reject_once" })
	stop, ups, err := h.prompt(sid, "run echo")
	if err != nil {
		t.Fatalf("err=%v\n%s", err, e2eTail(h.stderr(), 20))
	}
	if len(h.permissionRequests()) == 0 {
		t.Fatalf("no permission request reached the editor (stop=%s updates=%v)\n%s", stop, ups, e2eTail(h.stderr(), 30))
	}
	// gemini names the directory the command would run in; that is where
	// the file must be missing.
	if calls := claudeUpdatesOf(ups, "tool_call"); len(calls) != 1 || !strings.Contains(fmt.Sprint(calls[0]["content"]), cwd) {
		t.Fatalf("tool call does not run in the session directory %s: %v", cwd, calls)
	}
	if _, err := os.Stat(filepath.Join(cwd, "created-by-tool.txt")); !os.IsNotExist(err) {
		t.Fatalf("tool ran despite rejection (stop=%s; stat err %v)", stop, err)
	}
	// gemini never ends a rejected call itself; hub must, as soon as gemini
	// goes on (its answer to the rejection) rather than only when the turn
	// ends, or the editor shows the call pending meanwhile.
	id := claudeUpdatesOf(ups, "tool_call")[0]["toolCallId"]
	var ends []string
	var called, ended bool
	for _, u := range ups {
		switch {
		case u["sessionUpdate"] == "tool_call" && u["toolCallId"] == id:
			called = true
		case u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == id:
			ends = append(ends, fmt.Sprint(u["status"]))
			ended = true
		case u["sessionUpdate"] == "agent_message_chunk" && called && !ended:
			t.Fatalf("gemini answered the rejection before hub ended tool call %v: %v", id, ups)
		}
	}
	if len(ends) != 1 || ends[0] != "failed" {
		t.Fatalf("rejected tool call %v got status updates %q, want one \"failed\"", id, ends)
	}
}

func TestGemini_CancelNoLeftovers(t *testing.T) {
	mock := mockllm.NewGeminiServer(mockllm.GeminiTurn{Text: "partial answer that hangs", Hang: true})
	defer mock.Close()
	h, sid, _ := geminiStartHub(t, mock)
	res := h.promptAsync(sid, "hang")
	if _, ok := h.waitUpdate(func(u map[string]any) bool { return u["sessionUpdate"] == "agent_message_chunk" }, 90*time.Second); !ok {
		t.Fatalf("no chunk before cancel\n%s", e2eTail(h.stderr(), 20))
	}
	h.cancel(sid)
	select {
	case r := <-res:
		if r.Err != nil || r.StopReason != "cancelled" {
			t.Fatalf("stop=%q err=%v", r.StopReason, r.Err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cancel did not end the turn")
	}
	h.close() // asserts no leftover processes
}

// geminiFunctionResponses returns the functionResponse parts of a request
// (what the CLI sent back after running tools).
func geminiFunctionResponses(r mockllm.GeminiRequest) []any {
	var out []any
	for _, c := range r.Contents {
		parts, _ := c["parts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if fr, ok := pm["functionResponse"]; ok {
				out = append(out, fr)
			}
		}
	}
	return out
}
