//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// The test binary doubles as a fake ACP agent (HUB_TEST_FAKE_ACP=MODE) and
// as the child that agent leaves running (HUB_TEST_SLEEP=1), so `hub run`
// is tested against real processes without any interpreter.
func init() {
	envFakes = append([]envFake{{"HUB_TEST_FAKE_ACP", func() { fakeACPAgent(os.Getenv("HUB_TEST_FAKE_ACP"), os.Getenv("HUB_TEST_PIDS")) }}},
		envFakes...)
}

// fakeACPAgent answers initialize and session/new; on session/prompt it
// sends one chunk, then ends the turn ("answer"), crashes with stderr output
// ("crash"; "crash-once" in the first process only) or
// starts a child and waits to be cancelled ("hang"), writing its own and
// the child's pid to pidFile.
func fakeACPAgent(mode, pidFile string) {
	if mode == "gone" { // exits at once, as an agent missing its config does
		fmt.Fprintln(os.Stderr, "fake: no config found")
		os.Exit(1)
	}
	out := json.NewEncoder(os.Stdout)
	send := func(v map[string]any) { v["jsonrpc"] = "2.0"; _ = out.Encode(v) }
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	var promptID any
	for sc.Scan() {
		var m struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}}})
		case "session/new":
			send(map[string]any{"id": m.ID, "result": map[string]any{"sessionId": "fake-1"}})
		case "session/prompt":
			promptID = m.ID
			send(map[string]any{"method": "session/update", "params": map[string]any{"sessionId": "fake-1",
				"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "partial answer"}}}})
			if mode == "crash-once" { // the first agent writes its pid and crashes; the ones after it answer
				mode = "answer"
				if _, err := os.Stat(pidFile); err != nil {
					_ = os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o644)
					mode = "crash"
				}
			}
			if mode == "answer" {
				send(map[string]any{"id": promptID, "result": map[string]any{"stopReason": "end_turn"}})
				continue
			}
			if mode == "crash" {
				// Wait until hub has read the chunk: acpclient closes the
				// connection as soon as the process exits and may drop
				// output still in the pipe (reported, not hub run's part).
				send(map[string]any{"id": "sync", "method": "_hub_test/ping", "params": map[string]any{}})
				for sc.Scan() && !strings.Contains(sc.Text(), `"sync"`) {
				}
				for i := 1; i <= 3; i++ {
					fmt.Fprintf(os.Stderr, "fake stderr %d\n", i)
				}
				os.Exit(3)
			}
			child := exec.Command(os.Args[0])
			child.Env = append(os.Environ(), "HUB_TEST_SLEEP=1", "HUB_TEST_FAKE_ACP=")
			if err := child.Start(); err != nil {
				os.Exit(4)
			}
			// A FIFO when the test waits for the pids (pidFIFO).
			_ = os.WriteFile(pidFile, []byte(fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)), 0o644)
		case "session/cancel":
			if mode == "ignore-cancel" {
				continue
			}
			send(map[string]any{"id": promptID, "result": map[string]any{"stopReason": "cancelled"}})
		}
	}
}

// fakeAgentConfig writes a user config with [agents.fake] running the
// fake ACP agent in mode, and [agents.ghost] naming a missing program.
func fakeAgentConfig(t *testing.T, root, mode string) (cwd, pidFile string) {
	t.Helper()
	cwd = filepath.Join(root, "project")
	if err := os.MkdirAll(filepath.Join(cwd, ".hub"), 0o755); err != nil {
		t.Fatal(err)
	}
	pidFile = filepath.Join(root, "pids")
	cfg := fmt.Sprintf("[agents.fake]\ncommand = [%q]\nenv = { HUB_TEST_FAKE_ACP = %q, HUB_TEST_PIDS = %q }\n\n[agents.ghost]\ncommand = [\"no-such-agent-binary\"]\n",
		os.Args[0], mode, pidFile)
	// The user's config: a project file could not name a program until
	// trusted.
	user := filepath.Join(root, "xdg_config_home", "hub", "config.toml")
	old, _ := os.ReadFile(user)
	if err := os.WriteFile(user, append(old, "\n"+cfg...), 0o644); err != nil {
		t.Fatal(err)
	}
	return cwd, pidFile
}

// TestRun_EveryExitCodeBothFormats drives `hub run` end to end (flags,
// config, registry, runner, output) with the replay adapter, and with
// configured ACP agents: one whose program is missing for exit 3, one
// that hangs in its prompt for the timeout and the interrupt. Those fire
// once the agent has the prompt (its pids reach a FIFO), never by the
// clock: the partial answer is in the output however loaded the machine.
func TestRun_EveryExitCodeBothFormats(t *testing.T) {
	scripts, err := filepath.Abs(filepath.Join("..", "..", "internal", "runner", "testdata", "replay"))
	if err != nil {
		t.Fatal(err)
	}
	hang := []string{"--agent", "fake"}
	cases := []struct {
		name   string
		script string
		args   []string
		fire   string // once the fake agent has the prompt: "timeout" (--timeout's timer) or "cancel"
		want   int
		text   string // text stdout
		errTxt string // text stderr fragment
	}{
		{name: "completed", script: "ok", want: 0, text: "All good.\n"},
		{name: "agent error", script: "crash", want: 1, text: "Working on it\n", errTxt: "agent crashed (exit 1)"},
		{name: "usage error", script: "ok", args: []string{"--approve", "sometimes"}, want: 2, errTxt: "--approve must be all, read-only or none"},
		{name: "not installed", args: []string{"--agent", "ghost"}, want: 3, errTxt: "no-such-agent-binary"},
		{name: "not authenticated", script: "auth", want: 4, errTxt: "not authenticated: 401 invalid x-api-key"},
		{name: "timeout", args: append(hang, "--timeout", "100ms"), fire: "timeout", want: 5, text: "partial answer\n", errTxt: "timed out after 100ms"},
		{name: "denied", script: "denied", want: 6, text: "skipped\n", errTxt: "permission rm -rf build [execute]: denied (--approve read-only)"},
		{name: "interrupted", args: hang, fire: "cancel", want: 130, text: "partial answer\n", errTxt: "interrupted (exit 130)"},
	}
	for _, c := range cases {
		for _, format := range []string{"text", "jsonl"} {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				root := isolate(t)
				cwd, pids := fakeAgentConfig(t, root, "hang")
				chdir(t, cwd)
				if c.script != "" {
					t.Setenv("HUB_REPLAY_SCRIPT", filepath.Join(scripts, c.script+".jsonl"))
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if c.fire != "" {
					fire := promptReached(t, pids)
					if c.fire == "cancel" {
						go func() { <-fire; cancel() }()
					} else {
						runClock = func(d time.Duration) <-chan time.Time {
							if d == 100*time.Millisecond {
								return fire
							}
							return time.After(d)
						}
						t.Cleanup(func() { runClock = nil })
					}
				}
				args := append([]string{"run", "--agent", "replay", "--format", format}, c.args...)
				var out, errb bytes.Buffer
				code := realMain(ctx, append(args, "go"), strings.NewReader(""), &out, &errb)
				if code != c.want {
					t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.want, out.String(), errb.String())
				}
				if format == "text" {
					if out.String() != c.text || !strings.Contains(errb.String(), c.errTxt) {
						t.Fatalf("stdout %q (want %q)\nstderr (want %q):\n%s", out.String(), c.text, c.errTxt, errb.String())
					}
					return
				}
				checkJSONL(t, out.String(), c.want)
			})
		}
	}
}

// checkJSONL checks every line is a v1 envelope and the last a summary
// with the exit code.
func checkJSONL(t *testing.T, out string, want int) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var last map[string]any
	for _, l := range lines {
		last = nil
		if err := json.Unmarshal([]byte(l), &last); err != nil || last["v"] != float64(1) || last["type"] == nil {
			t.Fatalf("not a v1 envelope (%v): %q", err, l)
		}
	}
	if last["type"] != "summary" || last["exitCode"] != float64(want) {
		t.Fatalf("last line is not a summary with exitCode %d: %v", want, last)
	}
	return last
}

// pidFIFO makes pidFile a FIFO, so that waitPIDs returns when the fake
// agent writes its pids, with no polling.
func pidFIFO(t *testing.T, pidFile string) {
	t.Helper()
	if err := unix.Mkfifo(pidFile, 0o600); err != nil {
		t.Fatal(err)
	}
}

// promptReached is closed once the fake agent (mode hang) has its prompt:
// it blocks writing its pids to the FIFO until this reads them.
func promptReached(t *testing.T, pidFile string) <-chan time.Time {
	pidFIFO(t, pidFile)
	reached := make(chan time.Time)
	go func() {
		_, _ = os.ReadFile(pidFile)
		close(reached)
	}()
	return reached
}

func waitPIDs(t *testing.T, pidFile string) (agent, child int) {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(pidFile)
		got <- string(b)
	}()
	select {
	case b := <-got:
		f := strings.Fields(b)
		if len(f) != 2 {
			t.Fatalf("pids %q", b)
		}
		agent, _ = strconv.Atoi(f[0])
		child, _ = strconv.Atoi(f[1])
		return agent, child
	case <-time.After(30 * time.Second): // a hang guard, not a speed check
		t.Fatal("the fake agent never got the prompt")
		return 0, 0
	}
}

// TestRun_RealProcesses covers what only real processes show: an interrupt
// writes what arrived and leaves no process behind (also when the agent
// ignores session/cancel), and a crash reports the partial answer and the
// agent's last stderr lines.
func TestRun_RealProcesses(t *testing.T) {
	cases := []struct {
		name    string
		mode    string
		format  string
		cancel  bool
		want    int
		stdout  string
		stderr  []string
		summary string
	}{
		{name: "interrupt text", mode: "hang", format: "text", cancel: true, want: 130, stdout: "partial answer\n", stderr: []string{"interrupted (exit 130)"}},
		{name: "interrupt jsonl", mode: "hang", format: "jsonl", cancel: true, want: 130, stdout: `"text":"partial answer"`, summary: "interrupted"},
		{name: "interrupt with cancel ignored", mode: "ignore-cancel", format: "text", cancel: true, want: 130, stdout: "partial answer\n",
			stderr: []string{"did not stop within"}},
		{name: "crash text", mode: "crash", format: "text", want: 1, stdout: "partial answer\n",
			stderr: []string{"exit code 3", "  | fake stderr 2\n", "  | fake stderr 3\n"}},
		{name: "crash jsonl", mode: "crash", format: "jsonl", want: 1, stdout: `"text":"partial answer"`, summary: "exit code 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := isolate(t)
			cwd, pidFile := fakeAgentConfig(t, root, c.mode)
			if c.cancel {
				pidFIFO(t, pidFile)
			}
			chdir(t, cwd)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pids := make(chan [2]int, 1)
			if c.cancel {
				go func() {
					a, ch := waitPIDs(t, pidFile)
					pids <- [2]int{a, ch}
					cancel()
				}()
			}
			var out, errb bytes.Buffer
			code := realMain(ctx, []string{"run", "--agent", "fake", "--format", c.format, "go"}, strings.NewReader(""), &out, &errb)
			if code != c.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.want, out.String(), errb.String())
			}
			if c.format == "text" && out.String() != c.stdout || !strings.Contains(out.String(), c.stdout) {
				t.Errorf("stdout %q, want %q", out.String(), c.stdout)
			}
			for _, f := range c.stderr {
				if !strings.Contains(errb.String(), f) {
					t.Errorf("stderr lacks %q:\n%s", f, errb.String())
				}
			}
			if c.format == "jsonl" {
				if sum := checkJSONL(t, out.String(), c.want); !strings.Contains(fmt.Sprint(sum["error"], sum["detail"]), c.summary) {
					t.Errorf("summary %v lacks %q", sum, c.summary)
				}
			}
			if !c.cancel {
				return
			}
			// The group was signalled before hub returned; the exits it
			// started end on their own.
			for _, pid := range <-pids {
				proctest.WaitGone(t, pid)
			}
		})
	}
}

// TestRun_StartFailureIsOneLine: an agent that exits before it answers
// initialize is told in one line naming it once, the same line in the
// jsonl summary, with the start failure's exit code.
func TestRun_StartFailureIsOneLine(t *testing.T) {
	const want = "fake could not start: it exited before answering initialize (exit code 1): fake: no config found"
	for _, format := range []string{"text", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			root := isolate(t)
			cwd, _ := fakeAgentConfig(t, root, "gone")
			chdir(t, cwd)
			var out, errb bytes.Buffer
			code := realMain(context.Background(), []string{"run", "--agent", "fake", "--format", format, "hi"}, strings.NewReader(""), &out, &errb)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstderr:\n%s", code, errb.String())
			}
			if format == "jsonl" {
				if got := checkJSONL(t, out.String(), 1)["error"]; got != want {
					t.Fatalf("summary error %q, want %q", got, want)
				}
				return
			}
			if !strings.Contains(errb.String(), "hub: "+want+" (exit 1)\n") {
				t.Fatalf("stderr lacks the one line %q:\n%s", want, errb.String())
			}
		})
	}
}

// TestRun_CatalogAgentWithNoConfig: a catalogued agent's program on PATH is
// an agent `hub run` drives with no [agents.NAME] entry; enabled = false
// takes it away again.
func TestRun_CatalogAgentWithNoConfig(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		t.Run(fmt.Sprintf("disabled=%v", disabled), func(t *testing.T) {
			root := isolate(t)
			if err := os.Symlink(os.Args[0], filepath.Join(root, "bin", "kilo")); err != nil {
				t.Fatal(err)
			}
			if disabled {
				cfg := filepath.Join(root, "xdg_config_home", "hub", "config.toml")
				old, _ := os.ReadFile(cfg)
				if err := os.WriteFile(cfg, append(old, "\n[agents.kilo]\nenabled = false\n"...), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("HUB_TEST_FAKE_ACP", "answer")
			var out, errb bytes.Buffer
			code := realMain(context.Background(), []string{"run", "--agent", "kilo", "hi"}, strings.NewReader(""), &out, &errb)
			switch {
			case disabled && code == 0:
				t.Fatalf("a disabled catalogued agent ran: %q", out.String())
			case !disabled && (code != 0 || out.String() != "partial answer\n"):
				t.Fatalf("exit %d stdout %q\nstderr:\n%s", code, out.String(), errb.String())
			}
		})
	}
}
