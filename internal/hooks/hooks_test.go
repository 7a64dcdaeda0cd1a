package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// runner builds a runner of one hook for ev.
func runner(t *testing.T, ev Event, h config.HookConfig) *Runner {
	t.Helper()
	r, err := New(map[string][]config.HookConfig{string(ev): {h}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func hook(command string) config.HookConfig { return config.HookConfig{Command: command} }

// fake is a hook command doing proctest ops, run by sh or cmd.exe alike.
func fake(ops ...string) string { return proctest.ShellCommand(ops...) }

func TestMain(m *testing.M) { proctest.Main(m, nil) }

func TestRun_ExitCodesAndAnswers(t *testing.T) {
	cases := []struct {
		name     string
		event    Event
		command  string
		decision Decision
		reason   string
		warned   bool
	}{
		{"exit 0 allows nothing by itself", PreToolUse, fake("exit:0"), None, "", false},
		{"exit 2 blocks with stderr", PreToolUse, fake("err:no writes here\n", "exit:2"), Deny, "no writes here", false},
		{"JSON deny", PreToolUse, fake(`out:{"decision":"deny","reason":"policy says no"}`), Deny, "policy says no", false},
		{"JSON allow", PreToolUse, fake(`out:{"decision":"allow","reason":"safe"}`), Allow, "safe", false},
		{"JSON ask falls through", PreToolUse, fake(`out:{"decision":"ask"}`), None, "", false},
		{"plain stdout is ignored", PreToolUse, fake("out:checked\n"), None, "", false},
		{"failure denies a tool call", PreToolUse, fake("err:boom\n", "exit:1"), Deny, "exit code 1: boom", true},
		{"unknown decision denies a tool call", PreToolUse, fake(`out:{"decision":"maybe"}`), Deny, `"maybe"`, true},
		{"failure after a tool call only warns", PostToolUse, fake("exit:3"), None, "", true},
		{"exit 2 blocks a prompt", UserPromptSubmit, fake("err:secret in prompt\n", "exit:2"), Deny, "secret in prompt", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runner(t, c.event, hook(c.command))
			out := r.Run(context.Background(), Input{Event: c.event, Cwd: t.TempDir(), Tool: "write_file", Kind: "edit"})
			if out.Decision != c.decision || !strings.Contains(out.Reason, c.reason) || (len(out.Warnings) > 0) != c.warned {
				t.Fatalf("outcome %+v, want %q with reason containing %q, warned %v", out, c.decision, c.reason, c.warned)
			}
		})
	}
}

// A hook that outlives its timeout is killed with its whole process group
// and the call it gates is denied.
func TestRun_HangingHookTimesOutAndDenies(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	r := runner(t, PreToolUse, config.HookConfig{Command: fake("child:"+pidFile, "hang"),
		Timeout: config.Duration{Duration: 2_000_000_000, Set: true}}) // long enough for the hook to start its child on a loaded machine
	r.stopGrace = 100_000_000
	out := r.Run(context.Background(), Input{Event: PreToolUse, Cwd: dir, Tool: "bash"})
	if out.Decision != Deny || !strings.Contains(out.Reason, "timed out") || len(out.Warnings) != 1 {
		t.Fatalf("outcome %+v", out)
	}
	if runtime.GOOS != "linux" {
		return // waiting for the hook's child by event needs a Linux pidfd
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	proctest.WaitGone(t, pid) // the hook's child went with it
}

func TestRun_HookReadsEventJSON(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "in.json")
	r := runner(t, PreToolUse, hook(fake("stdin>:"+got)))
	in := Input{Event: PreToolUse, Session: "s1", Cwd: dir, Agent: "native", Tool: "bash", Kind: "execute", ToolCallID: "c1",
		Input: json.RawMessage(`{"command":"ls"}`)}
	if out := r.Run(context.Background(), in); out.Decision != None || len(out.Warnings) != 0 {
		t.Fatalf("outcome %+v", out)
	}
	var seen map[string]any
	b, _ := os.ReadFile(got)
	if err := json.Unmarshal(b, &seen); err != nil {
		t.Fatalf("stdin %q: %v", b, err)
	}
	want := map[string]any{"event": "PreToolUse", "session": "s1", "cwd": dir, "agent": "native", "tool": "bash", "kind": "execute",
		"toolCallId": "c1", "input": map[string]any{"command": "ls"}}
	if len(seen) != len(want) {
		t.Fatalf("stdin %v, want %v", seen, want)
	}
	for k, v := range want {
		if a, _ := json.Marshal(seen[k]); string(a) != mustJSON(v) {
			t.Fatalf("stdin %s = %s, want %s", k, a, mustJSON(v))
		}
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestRun_MatcherFindsNameOrKind(t *testing.T) {
	cases := []struct {
		matcher, tool, kind string
		runs                bool
	}{
		{"bash|write", "write_file", "edit", true},
		{"bash|write", "Bash", "execute", true},
		{"bash|write", "read_file", "read", false},
		{"^edit$", "edit_file", "edit", true},
		{"^edit$", "edit_file", "", false},
		{"", "anything", "", true},
	}
	for _, c := range cases {
		t.Run(c.matcher+"/"+c.tool, func(t *testing.T) {
			r := runner(t, PreToolUse, config.HookConfig{Command: fake("exit:2"), Matcher: c.matcher})
			out := r.Run(context.Background(), Input{Event: PreToolUse, Cwd: t.TempDir(), Tool: c.tool, Kind: c.kind})
			if (out.Decision == Deny) != c.runs {
				t.Fatalf("outcome %+v, want run=%v", out, c.runs)
			}
		})
	}
}

func TestRun_FirstDenyWinsOverAllow(t *testing.T) {
	r, err := New(map[string][]config.HookConfig{"PreToolUse": {
		hook(fake(`out:{"decision":"allow"}`)), hook(fake("err:nope\n", "exit:2")), hook(fake(`out:{"decision":"allow"}`))}})
	if err != nil {
		t.Fatal(err)
	}
	if out := r.Run(context.Background(), Input{Event: PreToolUse, Cwd: t.TempDir()}); out.Decision != Deny || out.Reason != "nope" {
		t.Fatalf("outcome %+v", out)
	}
}

func TestNew_NoHooksIsNil(t *testing.T) {
	r, err := New(nil)
	if err != nil || r != nil {
		t.Fatalf("runner %v err %v", r, err)
	}
	if r.Has(PreToolUse) || r.Run(context.Background(), Input{Event: PreToolUse}).Decision != None || r.Observe(Input{}) != nil {
		t.Fatal("a nil runner acted")
	}
}
