//go:build codexrecord

package codex

// Records real `codex app-server` traffic against the mock Responses server
// into adapters/codex/testdata/<case>/stream.jsonl. Run by hand:
//   CODEX_BIN=... go test -tags codexrecord -run TestRecord ./adapters/codex/

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc"
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
	dir := filepath.Join("testdata", c.name)
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

// Exec recordings: real `codex exec --json` runs against the mock Responses
// server, stored as adapters/codex/testdata/exec-<case>/stream.jsonl (goldens:
// go test ./adapters/codex -run CodexFixtures -update). Run by hand:
//   CODEX_BIN=$PWD/.cache/e2e/codex/node_modules/.bin/codex \
//     go test -tags codexrecord -run TestRecordExec -v ./adapters/codex/
// (CASE=exec-text records one case.) The temp cwd becomes /home/dev/project
// and the temp CODEX_HOME /home/dev/.codex, as in the other fixtures.

type execRecCase struct {
	name  string
	turns []mockllm.ResponsesTurn
	loop  bool // the mock repeats its last turn (a 429 that never ends)
	// retries sets the provider's request_max_retries and
	// stream_max_retries (the mock config has 0).
	retries int
	// cancelFile: SIGINT to the process group once the tool has created
	// this file in the cwd (the command is then running).
	cancelFile string
}

func TestRecordExec(t *testing.T) {
	bin := os.Getenv("CODEX_BIN")
	if bin == "" {
		t.Skip("CODEX_BIN unset")
	}
	big := strings.Repeat("y", 1_000_000)
	cases := []execRecCase{
		{name: "exec-text", turns: []mockllm.ResponsesTurn{{Reasoning: "Thinking about greeting.", Text: "Hello from the mock model."}}},
		{name: "exec-long-line", turns: []mockllm.ResponsesTurn{
			{Text: "Printing a lot.", ToolCalls: []mockllm.ResponsesToolCall{{Name: "exec_command",
				Args: `{"cmd":"head -c 1000000 /dev/zero | tr '\\0' x","yield_time_ms":60000,"max_output_tokens":1000000}`}}},
			{Text: big + " That was a megabyte.", ChunkSize: 64 << 10}}},
		{name: "exec-rate-limit", retries: 2, turns: []mockllm.ResponsesTurn{
			{Status: 429, RetryAfter: "0"}, {Status: 429, RetryAfter: "0"}, {Text: "Answer after the retry."}}},
		{name: "exec-rate-limit-exhausted", retries: 2, loop: true, turns: []mockllm.ResponsesTurn{{Status: 429, RetryAfter: "0"}}},
		{name: "exec-cancel-mid-tool", cancelFile: "started.txt", turns: []mockllm.ResponsesTurn{
			{Text: "Waiting.", ToolCalls: []mockllm.ResponsesToolCall{{Name: "exec_command",
				Args: `{"cmd":"touch started.txt; sleep 30; echo late","yield_time_ms":60000}`}}},
			{Text: "never"}}},
	}
	only := os.Getenv("CASE")
	for _, c := range cases {
		if only != "" && only != c.name {
			continue
		}
		t.Run(c.name, func(t *testing.T) { recordExec(t, bin, c) })
	}
}

func recordExec(t *testing.T, bin string, c execRecCase) {
	srv := mockllm.NewResponsesServer(c.turns...)
	defer srv.Close()
	srv.SetLoop(c.loop)
	root := t.TempDir()
	home, cwd := filepath.Join(root, "codex-home"), filepath.Join(root, "project")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := srv.CodexConfig("mock-model", "MOCK_API_KEY")
	if c.retries > 0 {
		n := fmt.Sprint(c.retries)
		cfg = strings.NewReplacer("request_max_retries = 0", "request_max_retries = "+n,
			"stream_max_retries = 0", "stream_max_retries = "+n).Replace(cfg)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := proc.Start(ctx, proc.Spec{Path: bin, Dir: cwd, StopSignal: syscall.SIGINT, Grace: 5 * time.Second,
		Args: []string{"exec", "--json", "--skip-git-repo-check", "-c", `sandbox_mode="danger-full-access"`, "--", "Please help with the " + c.name + " case"},
		Env:  append(os.Environ(), "CODEX_HOME="+home, "MOCK_API_KEY=k", "HOME="+root)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Stop() }()
	_ = p.Stdin.Close()
	if c.cancelFile != "" {
		go func() {
			for ctx.Err() == nil {
				if _, err := os.Stat(filepath.Join(cwd, c.cancelFile)); err == nil {
					time.Sleep(500 * time.Millisecond)
					_ = p.Signal(syscall.SIGINT)
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	data, err := io.ReadAll(p.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Wait()
	t.Logf("exit %d; %d model requests; stderr:\n%s", p.ExitCode(), len(srv.Requests()), p.StderrTail(20))
	out := strings.NewReplacer(cwd, "/home/dev/project", home, "/home/dev/.codex", root, "/home/dev").Replace(string(data))
	if out == "" {
		t.Fatal("no output")
	}
	dir := filepath.Join("testdata", c.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stream.jsonl"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}
