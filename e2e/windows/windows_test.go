//go:build windows

package windows

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/testlog"
)

// The test binary doubles as the fake ACP agent (fakeEnv=acp) and as the
// agent's child process (fakeEnv=child).
const (
	fakeEnv     = "HUB_WINE_FAKE"
	pidFileEnv  = "HUB_WINE_PIDFILE"
	callTimeout = 60 * time.Second
)

func TestMain(m *testing.M) {
	switch os.Getenv(fakeEnv) {
	case "acp":
		fakeAgent(os.Stdin, os.Stdout)
		os.Exit(0)
	case "child":
		select {} // lives until something ends it
	}
	os.Exit(m.Run())
}

// hubBin is hub.exe, built by make test-windows.
func hubBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("HUB_BIN")
	if bin == "" {
		t.Fatal("HUB_BIN must name hub.exe (make test-windows sets it)")
	}
	return bin
}

// isolated is an environment whose home, config and state folders are the
// test's own.
func isolated(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	env := []string{"USERPROFILE=" + home, "HOME=" + home, "APPDATA=" + filepath.Join(home, "AppData", "Roaming"),
		"LOCALAPPDATA=" + filepath.Join(home, "AppData", "Local"), "HUB_LOG=warn"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "USERPROFILE", "HOME", "APPDATA", "LOCALAPPDATA", "HUB_LOG":
		default:
			env = append(env, kv)
		}
	}
	return env
}

// fakeAgentConfig writes a hub config whose default agent is this test
// binary behind an npm-style .cmd shim, and returns its path and the file
// the fake writes "agentPID childPID" to.
func fakeAgentConfig(t *testing.T) (cfg, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(dir, "fake-agent.cmd")
	if err := os.WriteFile(shim, []byte("@echo off\r\n\""+self+"\" %*\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pidFile = filepath.Join(dir, "pids")
	cfg = filepath.Join(dir, "config.toml")
	body := fmt.Sprintf("default_agent = \"fake\"\n\n[agents.fake]\nprotocol = \"acp\"\ncommand = %q\nenv = { %s = \"acp\", %s = %q }\n",
		shim, fakeEnv, pidFileEnv, pidFile)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg, pidFile
}

// TestACP_SessionThroughCmdShim drives hub.exe acp through a prompt with a
// permission request answered by the editor, a cancel, and a session load.
func TestACP_SessionThroughCmdShim(t *testing.T) {
	cfg, _ := fakeAgentConfig(t)
	c := startACP(t, cfg)
	c.call(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	cwd := t.TempDir()
	sid := c.newSession(t, cwd)

	done := c.prompt(sid, "perm")
	perm := c.nextPermission(t)
	if title, _ := perm.params["toolCall"].(map[string]any)["title"].(string); !strings.Contains(title, "x.txt") {
		t.Fatalf("permission request %v does not name the file", perm.params)
	}
	c.answer(perm, optionOfKind(t, perm.params, "allow_once"))
	if got := stopReason(t, <-done); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	if text := c.text(sid); !strings.Contains(text, "allowed") {
		t.Fatalf("agent text %q, want the allowed answer", text)
	}

	done = c.prompt(sid, "wait")
	c.waitText(t, sid, "waiting")
	c.notify("session/cancel", map[string]any{"sessionId": sid})
	if got := stopReason(t, <-done); got != "cancelled" {
		t.Fatalf("stopReason after cancel %q", got)
	}

	c.call(t, "session/load", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}})
	done = c.prompt(sid, "echo")
	if got := stopReason(t, <-done); got != "end_turn" {
		t.Fatalf("stopReason after load %q", got)
	}
	c.waitText(t, sid, "echo-ok")
}

// TestACP_KilledHubLeavesNoAgent kills hub.exe mid-turn: the agent and its
// child are in hub's Job object, which Windows ends with hub's last handle.
func TestACP_KilledHubLeavesNoAgent(t *testing.T) {
	cfg, pidFile := fakeAgentConfig(t)
	c := startACP(t, cfg)
	c.call(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	sid := c.newSession(t, t.TempDir())
	c.prompt(sid, "child")
	c.waitText(t, sid, "spawned") // sent after the pid file is written
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		pids = append(pids, pid)
	}
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !exits(pid, callTimeout) {
			t.Errorf("process %d outlived hub.exe", pid)
		}
	}
}

// TestRun_NativeLoopAgainstMockLLM runs hub.exe run on the native loop,
// the mock LLM answering over loopback.
func TestRun_NativeLoopAgainstMockLLM(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "hello from the mock"})
	defer srv.Close()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "[providers.mock]\nbase_url = %q\nmodel = \"mock-model\"\n", srv.URL), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hubBin(t), "--config", cfg, "run", "--agent", "mock", "--cwd", t.TempDir(), "--", "say hello")
	cmd.Env = isolated(t)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("hub run: %v\nstderr:\n%s", err, errb.String())
	}
	if got := strings.TrimSpace(out.String()); got != "hello from the mock" {
		t.Fatalf("stdout %q, stderr:\n%s", got, errb.String())
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1", n)
	}
}

// exits reports whether the process pid ends within d (true when it is
// already gone).
func exits(pid int, d time.Duration) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true // no such process
	}
	ended := make(chan struct{})
	go func() {
		p.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return true
	case <-time.After(d):
		p.Kill() // the test's own leftover
		return false
	}
}

// client is a minimal ACP client of hub.exe acp.
type client struct {
	cmd *exec.Cmd
	in  io.WriteCloser

	mu      sync.Mutex
	next    int
	pending map[int]chan map[string]any
	texts   map[string]*strings.Builder
	changed chan struct{}
	perms   chan request
}

type request struct {
	id     json.RawMessage
	params map[string]any
}

func startACP(t *testing.T, cfg string) *client {
	t.Helper()
	cmd := exec.Command(hubBin(t), "--config", cfg, "acp")
	cmd.Env = isolated(t)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb testlog.Buffer // written by exec's copier, read on failure
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &client{cmd: cmd, in: in, pending: map[int]chan map[string]any{}, texts: map[string]*strings.Builder{},
		changed: make(chan struct{}, 1), perms: make(chan request, 8)}
	go c.read(out)
	t.Cleanup(func() {
		in.Close()
		ended := make(chan struct{})
		go func() { cmd.Wait(); close(ended) }()
		select {
		case <-ended:
		case <-time.After(callTimeout):
			cmd.Process.Kill()
			<-ended
		}
		if t.Failed() {
			t.Logf("hub.exe stderr:\n%s", errb.String())
		}
	})
	return c
}

func (c *client) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params map[string]any  `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		var whole map[string]any
		json.Unmarshal(sc.Bytes(), &whole)
		switch {
		case m.Method == "session/request_permission":
			c.perms <- request{id: m.ID, params: m.Params}
		case m.Method == "session/update":
			c.update(m.Params)
		case m.Method != "" && len(m.ID) > 0:
			c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not offered"}})
		case m.Method == "":
			id, _ := strconv.Atoi(string(m.ID))
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- whole
			}
		}
	}
	c.mu.Lock()
	for id, ch := range c.pending {
		ch <- map[string]any{"error": map[string]any{"message": "hub.exe closed its output"}}
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

func (c *client) update(p map[string]any) {
	u, _ := p["update"].(map[string]any)
	if u["sessionUpdate"] != "agent_message_chunk" {
		return
	}
	text, _ := u["content"].(map[string]any)["text"].(string)
	sid, _ := p["sessionId"].(string)
	c.mu.Lock()
	if c.texts[sid] == nil {
		c.texts[sid] = &strings.Builder{}
	}
	c.texts[sid].WriteString(text)
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *client) text(sid string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.texts[sid]; b != nil {
		return b.String()
	}
	return ""
}

// waitText waits for the agent's text in sid to hold want.
func (c *client) waitText(t *testing.T, sid, want string) {
	t.Helper()
	deadline := time.After(callTimeout)
	for !strings.Contains(c.text(sid), want) {
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("agent text %q never held %q", c.text(sid), want)
		}
	}
}

func (c *client) send(v any) {
	b, _ := json.Marshal(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.in.Write(append(b, '\n'))
}

func (c *client) start(method string, params any) chan map[string]any {
	ch := make(chan map[string]any, 1)
	c.mu.Lock()
	c.next++
	id := c.next
	c.pending[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

func (c *client) call(t *testing.T, method string, params any) map[string]any {
	t.Helper()
	select {
	case resp := <-c.start(method, params):
		if resp["error"] != nil {
			t.Fatalf("%s: %v", method, resp["error"])
		}
		res, _ := resp["result"].(map[string]any)
		return res
	case <-time.After(callTimeout):
		t.Fatalf("%s: no answer", method)
		return nil
	}
}

func (c *client) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *client) newSession(t *testing.T, cwd string) string {
	t.Helper()
	sid, _ := c.call(t, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})["sessionId"].(string)
	if sid == "" {
		t.Fatal("session/new gave no sessionId")
	}
	return sid
}

func (c *client) prompt(sid, text string) chan map[string]any {
	return c.start("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

func (c *client) nextPermission(t *testing.T) request {
	t.Helper()
	select {
	case r := <-c.perms:
		return r
	case <-time.After(callTimeout):
		t.Fatal("no permission request reached the editor")
		return request{}
	}
}

func (c *client) answer(r request, optionID string) {
	c.send(map[string]any{"jsonrpc": "2.0", "id": r.id, "result": map[string]any{
		"outcome": map[string]any{"outcome": "selected", "optionId": optionID}}})
}

func optionOfKind(t *testing.T, params map[string]any, kind string) string {
	t.Helper()
	opts, _ := params["options"].([]any)
	for _, o := range opts {
		if m, _ := o.(map[string]any); m["kind"] == kind {
			id, _ := m["optionId"].(string)
			return id
		}
	}
	t.Fatalf("no %s option in %v", kind, opts)
	return ""
}

func stopReason(t *testing.T, resp map[string]any) string {
	t.Helper()
	if resp["error"] != nil {
		t.Fatalf("session/prompt: %v", resp["error"])
	}
	res, _ := resp["result"].(map[string]any)
	s, _ := res["stopReason"].(string)
	return s
}
