//go:build e2e && unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
)

// runResult is one `hub run` invocation's outcome.
type runResult struct {
	stdout, stderr string
	code           int
	lines          []map[string]any // stdout parsed as jsonl (when it is)
}

// runHub runs `HUB_BIN run args…` with a temp HOME whose user config is
// hubCfg, waits (bounded), and checks that nothing it started survives.
func runHub(t *testing.T, home, hubCfg string, stdin string, args ...string) runResult {
	t.Helper()
	return runHubWithin(t, 3*time.Minute, home, hubCfg, stdin, args...)
}

// runHubWithin is runHub failing when the run takes longer than within.
func runHubWithin(t *testing.T, within time.Duration, home, hubCfg string, stdin string, args ...string) runResult {
	t.Helper()
	cfgDir := filepath.Join(home, ".config", "hub")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(hubCfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("run-%d-%d", os.Getpid(), time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2eHubBin(t), append([]string{"run"}, args...)...)
	cmd.Dir = home
	cmd.Env = e2eEnv(home, tag, nil)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := runResult{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("hub run: %v\n%s", err, e2eTail(r.stderr, 30))
	}
	if ctx.Err() != nil {
		t.Fatalf("hub run did not finish in time\n%s", e2eTail(r.stderr, 30))
	}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			r.lines = append(r.lines, m)
		}
	}
	runNoLeftovers(t, tag)
	return r
}

// runNoLeftovers fails if a process carrying tag is still alive shortly
// after hub run returned.
func runNoLeftovers(t *testing.T, tag string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		for pid, info := range e2eScanProcs() {
			if info.state != "Z" && e2eHasTag(pid, tag) {
				left = append(left, fmt.Sprintf("%d(%s)", pid, e2eCmdline(pid)))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left after hub run: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runSummary returns the jsonl summary line (the last line).
func runSummary(t *testing.T, r runResult) map[string]any {
	t.Helper()
	if len(r.lines) == 0 {
		t.Fatalf("no jsonl output; stderr:\n%s", e2eTail(r.stderr, 30))
	}
	s := r.lines[len(r.lines)-1]
	if s["type"] != "summary" || s["v"] != float64(1) {
		t.Fatalf("last line is not a v1 summary: %v", s)
	}
	return s
}

// runEvents returns the jsonl lines of type typ.
func runEvents(r runResult, typ string) []map[string]any {
	var out []map[string]any
	for _, l := range r.lines {
		if l["type"] == typ {
			out = append(out, l)
		}
	}
	return out
}

func TestRunCodex_ToolApprovedThenResumed(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Creating f.txt.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_run", "echo hi > f.txt")}},
		mockllm.ResponsesTurn{Text: "Created f.txt."},
		mockllm.ResponsesTurn{Text: "Still here."},
	)
	defer mock.Close()
	cfg := codexHubConfig(t, mock)
	home := t.TempDir()

	r := runHub(t, home, cfg, "", "--agent", "codex", "--cwd", cwd, "--approve", "all", "--format", "jsonl", "create f.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, e2eTail(r.stderr, 30))
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "f.txt")); string(b) != "hi\n" {
		t.Errorf("f.txt = %q", b)
	}
	if len(runEvents(r, "tool_call")) == 0 {
		t.Errorf("no tool_call line in jsonl:\n%s", r.stdout)
	}
	sum := runSummary(t, r)
	id, _ := sum["agentSessionId"].(string)
	if sum["stopReason"] != "end_turn" || id == "" {
		t.Fatalf("summary = %v", sum)
	}

	r = runHub(t, home, cfg, "and again?", "--agent", "codex", "--cwd", cwd, "--resume", id, "--format", "text", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "Still here.") {
		t.Fatalf("resumed run: exit %d stdout %q\n%s", r.code, r.stdout, e2eTail(r.stderr, 30))
	}
	reqs := mock.Requests()
	if last := reqs[len(reqs)-1]; !codexInputHas(last, "create f.txt") || !codexInputHas(last, "and again?") {
		t.Errorf("--resume did not continue the codex thread: input %v", last.Input)
	}
}

func TestRunCodex_DeniedPermissionExits6(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Writing g.txt.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_deny", "echo no > g.txt")}},
		mockllm.ResponsesTurn{Text: "Not written."},
	)
	defer mock.Close()
	r := runHub(t, t.TempDir(), codexHubConfig(t, mock), "", "--agent", "codex", "--cwd", cwd, "--approve", "none", "--format", "jsonl", "write g.txt")
	if r.code != 6 {
		t.Fatalf("exit %d, want 6\n%s", r.code, e2eTail(r.stderr, 30))
	}
	if _, err := os.Stat(filepath.Join(cwd, "g.txt")); !os.IsNotExist(err) {
		t.Errorf("denied command created g.txt (stat err %v)", err)
	}
	if denied, _ := runSummary(t, r)["denied"].([]any); len(denied) == 0 {
		t.Errorf("summary lists no denied permission: %v", runSummary(t, r))
	}
}

func TestRunClaude_TextAnswerOnStdout(t *testing.T) {
	mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Thinking: "Consider.", Text: "The answer is 42."})
	defer mock.Close()
	r := runHub(t, t.TempDir(), claudeHubConfig(t, mock), "", "--agent", "claude", "--cwd", t.TempDir(), "what is the answer?")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "The answer is 42." {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, e2eTail(r.stderr, 30))
	}
}

func TestRunGemini_ToolAndText(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	mock := mockllm.NewGeminiServer(geminiToolTurn(), mockllm.GeminiTurn{Text: "Listed."})
	defer mock.Close()
	home := t.TempDir()
	geminiSettings(t, home)
	r := runHub(t, home, geminiHubCfg(bin, mock), "", "--agent", "gemini", "--cwd", t.TempDir(), "--approve", "all", "--format", "jsonl", "list files")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, e2eTail(r.stderr, 30))
	}
	if len(runEvents(r, "tool_call")) == 0 || !strings.Contains(runText(r), "Listed.") {
		t.Errorf("want a tool_call and the text; stdout:\n%s", r.stdout)
	}
}

func TestRunPi_Text(t *testing.T) {
	bin := e2eCLI(t, "pi", "pi")
	mock := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "pi says hello"})
	defer mock.Close()
	r := runHub(t, t.TempDir(), piHubCfg(bin, piAgentDir(t, mock)), "", "--agent", "pi", "--cwd", t.TempDir(), "--format", "jsonl", "hello")
	if r.code != 0 || !strings.Contains(runText(r), "pi says hello") {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, e2eTail(r.stderr, 30))
	}
	if id, _ := runSummary(t, r)["agentSessionId"].(string); id == "" {
		t.Errorf("summary has no agentSessionId for --resume: %v", runSummary(t, r))
	}
}

// runText joins the text events of a jsonl run.
func runText(r runResult) string {
	var b strings.Builder
	for _, l := range runEvents(r, "text") {
		s, _ := l["text"].(string)
		b.WriteString(s)
	}
	return b.String()
}

// With codex's own defaults (workspace-write, on-request), which let it
// write in the workspace without asking, --approve none and read-only
// still deny the write: hub makes codex ask (untrusted, read-only sandbox),
// so the denial shows in the summary and the exit code.
func TestRunCodex_ApproveBindsCodexDefaults(t *testing.T) {
	for _, approve := range []string{"none", "read-only"} {
		t.Run(approve, func(t *testing.T) {
			cwd := t.TempDir()
			mock := mockllm.NewResponsesServer(
				mockllm.ResponsesTurn{Text: "Writing g.txt.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_w", "echo no > g.txt")}},
				mockllm.ResponsesTurn{Text: "Done."},
			)
			defer mock.Close()
			cfg := codexPlainConfig(t, mock)
			r := runHub(t, t.TempDir(), cfg, "", "--agent", "codex", "--cwd", cwd, "--approve", approve, "--format", "jsonl", "write g.txt")
			if _, err := os.Stat(filepath.Join(cwd, "g.txt")); !os.IsNotExist(err) {
				t.Fatalf("--approve %s: codex wrote g.txt (exit %d, summary %v)", approve, r.code, runSummary(t, r))
			}
			if denied, _ := runSummary(t, r)["denied"].([]any); r.code != 6 || len(denied) == 0 {
				t.Errorf("--approve %s: exit %d, summary %v; want exit 6 with the denial", approve, r.code, runSummary(t, r))
			}
		})
	}
}

// hub run with --approve read-only and an allow pattern: a real claude
// runs the allowed command, and the one nothing allows is denied (exit 6).
func TestRunClaude_AllowToolLiftsReadOnlyForItsCommandOnly(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewAnthropicServer(
		mockllm.AnthropicTurn{Text: "Testing.", ToolUses: []mockllm.AnthropicToolUse{{ID: "toolu_test", Name: "Bash", Input: `{"command":"echo testing > t.txt","description":"test"}`}}},
		mockllm.AnthropicTurn{Text: "Cleaning.", ToolUses: []mockllm.AnthropicToolUse{{ID: "toolu_rm", Name: "Bash", Input: `{"command":"rm -rf build","description":"clean"}`}}},
		mockllm.AnthropicTurn{Text: "Done."},
	)
	defer mock.Close()
	if err := os.MkdirAll(filepath.Join(cwd, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runHub(t, t.TempDir(), claudeHubConfig(t, mock), "", "--agent", "claude", "--cwd", cwd, "--approve", "read-only",
		"--allow-tool", "Bash(echo testing:*)", "--format", "jsonl", "test and clean")
	s := runSummary(t, r)
	denied, _ := s["denied"].([]any)
	if r.code != 6 || len(denied) != 1 {
		t.Fatalf("exit %d, denied %v; want exit 6 with rm denied only\n%s", r.code, denied, e2eTail(r.stderr, 30))
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "t.txt")); string(b) != "testing\n" {
		t.Errorf("the allowed command did not run: t.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(cwd, "build")); err != nil {
		t.Errorf("the denied rm ran: %v", err)
	}
}
