//go:build codexrecord

package codex

// Records real `codex app-server` traffic against the mock Responses server
// into testdata/codex/<case>/stream.jsonl. Run by hand:
//   CODEX_BIN=... go test -tags codexrecord -run TestRecord ./adapters/codex/

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
)

type recCase struct {
	name     string
	model    string
	policy   string
	sandbox  string
	turns    []mockllm.ResponsesTurn
	decision string
	prompts  []string
	cancelAt time.Duration
}

func TestRecord(t *testing.T) {
	bin := os.Getenv("CODEX_BIN")
	if bin == "" {
		t.Skip("CODEX_BIN unset")
	}
	cases := []recCase{
		{name: "appserver-text", policy: "never", sandbox: "danger-full-access", prompts: []string{"say hi"},
			turns: []mockllm.ResponsesTurn{{Reasoning: "Thinking about greeting.", Text: "Hello from the mock model."}}},
		{name: "appserver-tool", policy: "never", sandbox: "danger-full-access", prompts: []string{"run echo"},
			turns: []mockllm.ResponsesTurn{
				{Text: "Running it.", ToolCalls: []mockllm.ResponsesToolCall{{Name: "exec_command", Args: `{"cmd":"echo hello-from-tool"}`}}},
				{Text: "The command printed hello-from-tool."}}},
		{name: "appserver-approval-deny", policy: "untrusted", sandbox: "read-only", decision: "decline", prompts: []string{"touch"},
			turns: []mockllm.ResponsesTurn{
				{ToolCalls: []mockllm.ResponsesToolCall{{Name: "exec_command", Args: `{"cmd":"touch denied.txt"}`}}},
				{Text: "The command was declined."}}},
		{name: "appserver-approval-allow", policy: "untrusted", sandbox: "danger-full-access", decision: "accept", prompts: []string{"touch"},
			turns: []mockllm.ResponsesTurn{
				{ToolCalls: []mockllm.ResponsesToolCall{{Name: "exec_command", Args: `{"cmd":"touch allowed.txt"}`}}},
				{Text: "Created."}}},
		{name: "appserver-file-change", model: "gpt-5.5", policy: "never", sandbox: "danger-full-access", prompts: []string{"write file"},
			turns: []mockllm.ResponsesTurn{
				{ToolCalls: []mockllm.ResponsesToolCall{{Name: "apply_patch", Custom: true, Input: "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"}}},
				{Text: "Wrote hello.txt."}}},
		{name: "appserver-error", policy: "never", sandbox: "danger-full-access", prompts: []string{"fail"},
			turns: []mockllm.ResponsesTurn{{Status: 400, ErrorBody: `{"error":{"message":"mock: forced error","type":"invalid_request_error","code":"mock_error"}}`}}},
		{name: "appserver-rate-limit", policy: "never", sandbox: "danger-full-access", prompts: []string{"limit"},
			turns: []mockllm.ResponsesTurn{{Status: 429, RetryAfter: "0"}}},
		{name: "appserver-cancel", policy: "never", sandbox: "danger-full-access", prompts: []string{"sleep"}, cancelAt: 1500 * time.Millisecond,
			turns: []mockllm.ResponsesTurn{
				{ToolCalls: []mockllm.ResponsesToolCall{{Name: "exec_command", Args: `{"cmd":"sleep 30","yield_time_ms":60000}`}}},
				{Text: "never"}}},
		{name: "appserver-two-turns", policy: "never", sandbox: "danger-full-access", prompts: []string{"one", "two"},
			turns: []mockllm.ResponsesTurn{{Text: "First answer."}, {Text: "Second answer."}}},
	}
	only := os.Getenv("CASE")
	for _, c := range cases {
		if only != "" && only != c.name {
			continue
		}
		t.Run(c.name, func(t *testing.T) { record(t, bin, c) })
	}
}

func record(t *testing.T, bin string, c recCase) {
	srv := mockllm.NewResponsesServer(c.turns...)
	defer srv.Close()
	home, _ := os.MkdirTemp("/work/main/.cache", "codexrec-")
	defer os.RemoveAll(home)
	cwd := filepath.Join(home, "project")
	os.MkdirAll(cwd, 0o755)
	model := c.model
	if model == "" {
		model = "mock-model"
	}
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(srv.CodexConfig(model, "MOCK_API_KEY")), 0o644)
	cmd := exec.Command(bin, "app-server")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "MOCK_API_KEY=k")
	cmd.Dir = cwd
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	dir := filepath.Join("..", "..", "testdata", "codex", c.name)
	os.MkdirAll(dir, 0o755)
	f, _ := os.Create(filepath.Join(dir, "stream.jsonl"))
	defer f.Close()
	lines := make(chan map[string]any, 100)
	go func() {
		sc := bufio.NewScanner(outp)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			b := append([]byte(nil), sc.Bytes()...)
			fmt.Fprintf(f, "%s\n", strings.ReplaceAll(string(b), home, "/home/dev/.codex"))
			var m map[string]any
			json.Unmarshal(b, &m)
			lines <- m
		}
		close(lines)
	}()
	id := 0
	send := func(method string, params any) int {
		id++
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		in.Write(append(b, '\n'))
		return id
	}
	wait := func(want int) map[string]any {
		for m := range lines {
			if v, ok := m["id"].(float64); ok && int(v) == want && m["method"] == nil {
				return m
			}
			handle(t, in, m, c.decision)
		}
		t.Fatal("eof")
		return nil
	}
	wait(send("initialize", map[string]any{"clientInfo": map[string]any{"name": "hub", "title": nil, "version": "0"}, "capabilities": nil}))
	in.Write([]byte(`{"jsonrpc":"2.0","method":"initialized"}` + "\n"))
	r := wait(send("thread/start", map[string]any{"cwd": cwd, "approvalPolicy": c.policy, "sandbox": c.sandbox}))
	thread := r["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
	for _, p := range c.prompts {
		r = wait(send("turn/start", map[string]any{"threadId": thread, "input": []any{map[string]any{"type": "text", "text": p, "text_elements": []any{}}}}))
		turn, _ := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
		var timer <-chan time.Time
		if c.cancelAt > 0 {
			timer = time.After(c.cancelAt)
		}
	loop:
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatal("eof")
				}
				handle(t, in, m, c.decision)
				if m["method"] == "turn/completed" {
					break loop
				}
			case <-timer:
				send("turn/interrupt", map[string]any{"threadId": thread, "turnId": turn})
			case <-time.After(30 * time.Second):
				t.Fatal("timeout")
			}
		}
	}
	time.Sleep(200 * time.Millisecond)
}

func handle(t *testing.T, in interface{ Write([]byte) (int, error) }, m map[string]any, decision string) {
	method, _ := m["method"].(string)
	if m["id"] == nil || method == "" {
		return
	}
	t.Logf("server request %s", method)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"decision": decision}})
	in.Write(append(b, '\n'))
}
