//go:build e2e && unix

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// acpScript writes replay steps as JSONL into a temp file and returns it.
func acpScript(t *testing.T, steps ...any) string {
	t.Helper()
	var b strings.Builder
	for _, s := range steps {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("marshal step: %v", err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatalf("write script: %v", err)
	}
	return p
}

type acpM = map[string]any

func acpText(s string) acpM { return acpM{"event": acpM{"type": "text", "text": s}} }

var acpTurn = acpM{"turn": true}

// acpUpdatesOf returns the updates of one tool call id, in order.
func acpUpdatesOf(updates []map[string]any, toolID string) []map[string]any {
	var out []map[string]any
	for _, u := range updates {
		if u["toolCallId"] == toolID {
			out = append(out, u)
		}
	}
	return out
}

func TestACP_TextTurn(t *testing.T) {
	script := acpScript(t, acpText("Hello, "), acpText("world."), acpTurn, acpText("second turn"), acpTurn)
	h := startHub(t, e2eReplayCfg(script), nil)
	h.initialize(map[string]any{})
	sid := h.newSession(t.TempDir())
	for i, want := range []string{"Hello, world.", "second turn"} {
		stop, updates, err := h.prompt(sid, fmt.Sprintf("turn %d", i))
		if err != nil {
			t.Fatalf("prompt %d: %v", i, err)
		}
		if stop != "end_turn" {
			t.Errorf("turn %d: stopReason = %q, want end_turn", i, stop)
		}
		if got := e2eText(updates); got != want {
			t.Errorf("turn %d: text = %q, want %q (kinds %v)", i, got, want, e2eKinds(updates))
		}
	}
}

func TestACP_PermissionRejectStopsTool(t *testing.T) {
	tool := acpM{"id": "w1", "name": "write_file", "title": "Write notes.txt", "kind": "edit", "status": "pending"}
	script := acpScript(t, acpM{
		"permission": acpM{"tool": tool},
		"allowed": []any{
			acpM{"event": acpM{"type": "tool_update", "tool": acpM{"id": "w1", "status": "completed"}}},
			acpText("wrote the file"),
		},
		"rejected": []any{
			acpM{"event": acpM{"type": "tool_update", "tool": acpM{"id": "w1", "status": "failed"}}},
			acpText("did not write"),
		},
	}, acpTurn)
	h := startHub(t, e2eReplayCfg(script), nil)
	h.initialize(map[string]any{})
	sid := h.newSession(t.TempDir())
	// No handler set: the harness rejects (reject_once).
	stop, updates, err := h.prompt(sid, "write notes")
	if err != nil || stop != "end_turn" {
		t.Fatalf("prompt = %q, %v; want end_turn", stop, err)
	}
	reqs := h.permissionRequests()
	if len(reqs) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(reqs))
	}
	if tc, _ := reqs[0]["toolCall"].(map[string]any); tc["toolCallId"] != "w1" {
		t.Errorf("permission toolCall = %v, want toolCallId w1", reqs[0]["toolCall"])
	}
	if text := e2eText(updates); strings.Contains(text, "wrote the file") || !strings.Contains(text, "did not write") {
		t.Errorf("text = %q: the rejected branch must run, not the allowed one", text)
	}
	tu := acpUpdatesOf(updates, "w1")
	if len(tu) == 0 || tu[len(tu)-1]["status"] != "failed" {
		t.Errorf("tool w1 updates = %v, want the last status failed", tu)
	}
	acpAssertToolCallBeforePermission(t, h, "w1")
}

// acpAssertToolCallBeforePermission checks on raw stdout that the tool_call
// for id precedes the permission request about it (C30).
func acpAssertToolCallBeforePermission(t *testing.T, h *hubConn, id string) {
	t.Helper()
	callAt, permAt := -1, -1
	for i, l := range h.stdoutLines() {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Update   map[string]any `json:"update"`
				ToolCall map[string]any `json:"toolCall"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(l), &m) != nil {
			continue
		}
		if m.Method == "session/update" && m.Params.Update["sessionUpdate"] == "tool_call" && m.Params.Update["toolCallId"] == id && callAt < 0 {
			callAt = i
		}
		if m.Method == "session/request_permission" && m.Params.ToolCall["toolCallId"] == id && permAt < 0 {
			permAt = i
		}
	}
	if permAt >= 0 && (callAt < 0 || callAt > permAt) {
		t.Errorf("tool_call for %s at line %d, permission request at line %d: want the tool_call first", id, callAt, permAt)
	}
}

func TestACP_CancelMidTurn(t *testing.T) {
	tests := []struct {
		name    string
		steps   []any
		trigger func(h *hubConn) bool
	}{
		{
			name:  "while streaming",
			steps: []any{acpText("working..."), acpM{"wait_cancel": true}, acpText("never sent"), acpTurn},
			trigger: func(h *hubConn) bool {
				_, ok := h.waitUpdate(func(u map[string]any) bool { return u["sessionUpdate"] == "agent_message_chunk" }, 10*time.Second)
				return ok
			},
		},
		{
			name: "while a permission is pending",
			steps: []any{acpM{
				"permission": acpM{"tool": acpM{"id": "x1", "title": "Run rm -rf build", "kind": "execute"}},
				"allowed":    []any{acpText("ran it")},
				"rejected":   []any{acpText("rejected it")},
			}, acpTurn},
			trigger: func(h *hubConn) bool {
				deadline := time.Now().Add(10 * time.Second)
				for len(h.permissionRequests()) == 0 && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				return len(h.permissionRequests()) > 0
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := startHub(t, e2eReplayCfg(acpScript(t, tc.steps...)), nil)
			release := make(chan struct{})
			defer close(release)
			h.setPermissionHandler(func(map[string]any) string { <-release; return "allow_once" })
			h.initialize(map[string]any{})
			sid := h.newSession(t.TempDir())
			res := h.promptAsync(sid, "long task")
			reached := make(chan bool, 1)
			go func() { reached <- tc.trigger(h) }()
			select {
			case r := <-res:
				t.Fatalf("turn ended before the cancel point: %q, %v", r.StopReason, r.Err)
			case ok := <-reached:
				if !ok {
					t.Fatalf("turn never reached the cancel point")
				}
			}
			h.cancel(sid)
			select {
			case r := <-res:
				if r.Err != nil || r.StopReason != "cancelled" {
					t.Fatalf("prompt = %q, %v; want stopReason cancelled (C37)", r.StopReason, r.Err)
				}
				for _, bad := range []string{"never sent", "ran it", "rejected it"} {
					if strings.Contains(e2eText(r.Updates), bad) {
						t.Errorf("text after cancel contains %q", bad)
					}
				}
			case <-time.After(2 * time.Second):
				t.Fatalf("prompt not answered within 2s of session/cancel (C37)")
			}
			// The session stays usable (C40).
			if stop, _, err := h.prompt(sid, "again"); err != nil || stop != "end_turn" {
				t.Errorf("prompt after cancel = %q, %v; want end_turn", stop, err)
			}
		})
	}
}

func TestACP_ListAndResumeAfterRestart(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	cfg := e2eReplayCfg("")
	h1 := startHubIn(t, home, cfg, nil)
	h1.initialize(map[string]any{})
	sid := h1.newSession(cwd)
	if stop, _, err := h1.prompt(sid, "remember me"); err != nil || stop != "end_turn" {
		t.Fatalf("first prompt = %q, %v", stop, err)
	}
	h1.close()

	h2 := startHubIn(t, home, cfg, nil)
	init := h2.initialize(map[string]any{})
	caps, _ := init["agentCapabilities"].(map[string]any)
	sc, _ := caps["sessionCapabilities"].(map[string]any)
	if sc["list"] == nil || sc["resume"] == nil {
		t.Fatalf("hub does not advertise session list+resume: %v", caps)
	}
	list, err := h2.call("session/list", map[string]any{})
	if err != nil {
		t.Fatalf("session/list: %v", err)
	}
	sessions, _ := list["sessions"].([]any)
	var found map[string]any
	for _, s := range sessions {
		if m, _ := s.(map[string]any); m["sessionId"] == sid {
			found = m
		}
	}
	if found == nil {
		t.Fatalf("session/list after restart = %v, want %s", list, sid)
	}
	if found["cwd"] != cwd {
		t.Errorf("listed cwd = %v, want %s", found["cwd"], cwd)
	}
	if _, err := h2.call("session/resume", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}}); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if n := len(h2.allUpdates()); n != 0 {
		t.Errorf("session/resume sent %d updates before its response, want none (C23)", n)
	}
	stop, updates, err := h2.prompt(sid, "back again")
	if err != nil || stop != "end_turn" {
		t.Fatalf("prompt after resume = %q, %v", stop, err)
	}
	if !strings.Contains(e2eText(updates), "back again") {
		t.Errorf("echo after resume = %q", e2eText(updates))
	}
}

// e2eFakeACPEnv makes the test binary act as a minimal ACP agent whose
// prompts spawn a long sleep in its process group and which ignores stdin
// EOF, so only hub's group kill can clean it up.
const (
	e2eFakeACPEnv     = "HUB_E2E_FAKE_ACP"
	e2eFakeACPPidFile = "HUB_E2E_FAKE_PIDFILE"
	// e2eFakeACPHang makes the fake agent's prompt never answer.
	e2eFakeACPHang = "HUB_E2E_FAKE_HANG"
)

func e2eFakeACPAgent(in io.Reader, out io.Writer) int {
	enc := json.NewEncoder(out)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 || m.Method == "" {
			continue
		}
		reply := func(result any) { enc.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result}) }
		switch m.Method {
		case "initialize":
			reply(map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}, "authMethods": []any{}})
		case "session/new":
			reply(map[string]any{"sessionId": "fake-1"})
		case "session/prompt":
			sleep := exec.Command("sleep", "300")
			if err := sleep.Start(); err == nil {
				os.WriteFile(os.Getenv(e2eFakeACPPidFile), []byte(strconv.Itoa(sleep.Process.Pid)), 0o644)
			}
			enc.Encode(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
				"sessionId": "fake-1",
				"update":    map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "spawned"}},
			}})
			if os.Getenv(e2eFakeACPHang) == "" {
				reply(map[string]any{"stopReason": "end_turn"})
			}
		default:
			enc.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
	select {} // a stuck agent: ignores EOF
}

// e2eFakeACPConfig is a hub config whose default agent is the fake ACP
// agent (this test binary), writing its child's pid to pidFile.
func e2eFakeACPConfig(t *testing.T, pidFile string, extraEnv string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatalf("executable: %v", err)
	}
	return fmt.Sprintf("default_agent = \"fake\"\n\n[agents.fake]\nprotocol = \"acp\"\ncommand = %q\nenv = { %s = \"1\", %s = %q%s }\n",
		self, e2eFakeACPEnv, e2eFakeACPPidFile, pidFile, extraEnv)
}

// e2eWaitPidFile waits for the fake agent to write its child's pid.
func e2eWaitPidFile(t *testing.T, pidFile string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(pidFile); err == nil && len(data) > 0 {
			pid, _ := strconv.Atoi(string(data))
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the fake agent did not spawn its child")
	return 0
}

// C11: stdin EOF while a prompt is still running (the agent never answers
// it) ends hub promptly, and neither the agent nor its child survives.
func TestACP_EOFMidTurnLeavesNoProcesses(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "sleep.pid")
	h := startHub(t, e2eFakeACPConfig(t, pidFile, fmt.Sprintf(", %s = \"1\"", e2eFakeACPHang)), nil)
	h.initialize(map[string]any{})
	sid := h.newSession(t.TempDir())
	res := h.promptAsync(sid, "hang")
	pid := e2eWaitPidFile(t, pidFile)
	if _, ok := h.waitUpdate(func(u map[string]any) bool { return u["sessionUpdate"] == "agent_message_chunk" }, 10*time.Second); !ok {
		t.Fatal("no update from the hanging turn")
	}
	select {
	case r := <-res:
		t.Fatalf("the hanging prompt was answered before EOF: %q %v", r.StopReason, r.Err)
	default:
	}
	h.close() // fails the test if hub is slow to exit or anything survives
	if info, ok := e2eScanProcs()[pid]; ok && info.state != "Z" {
		t.Errorf("the agent's child %d still running after EOF (state %s)", pid, info.state)
	}
}

func TestACP_NoLeftoverProcesses(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "sleep.pid")
	cfg := e2eFakeACPConfig(t, pidFile, "")
	h := startHub(t, cfg, nil)
	h.initialize(map[string]any{})
	sid := h.newSession(t.TempDir())
	stop, updates, err := h.prompt(sid, "spawn something")
	if err != nil || stop != "end_turn" {
		t.Fatalf("prompt = %q, %v; want end_turn", stop, err)
	}
	if got := e2eText(updates); got != "spawned" {
		t.Errorf("text = %q, want spawned", got)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the fake agent did not spawn its child: %v", err)
	}
	pid, _ := strconv.Atoi(string(data))
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		t.Fatalf("grandchild %d not running before close: %v", pid, err)
	}
	h.close() // fails the test if the agent or its sleep survive
	if info, ok := e2eScanProcs()[pid]; ok && info.state != "Z" {
		t.Errorf("grandchild %d still running after close (state %s)", pid, info.state)
	}
}
