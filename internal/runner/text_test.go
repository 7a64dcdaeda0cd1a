package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

func toolCall(id string) adapters.Event {
	return adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: id, Title: "Read " + id, Kind: adapters.KindRead}}
}

func agentErr(msg string, code adapters.ErrorCode, detail string, fatal bool) adapters.Event {
	return adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: msg, Code: code, Detail: detail, Fatal: fatal}}
}

func TestRun_TextOutput(t *testing.T) {
	reconnecting, reconnectingTimeout := firesTimeout(20*time.Millisecond, waitCancel(), agentErr("Reconnecting... 2/5", "provider", "", false))
	crashDetail := "stderr line 1 | Traceback: boom"
	cases := []struct {
		name     string
		a        *fakeAdapter
		mod      func(*Options)
		want     int
		stdout   string
		stderr   []string // fragments
		notErr   []string // fragments stderr must not hold
		errCount map[string]int
	}{
		{name: "final answer only after tool calls", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(
			text("Let me read the file."), toolCall("t1"), text("Now the other one."), toolCall("t2"),
			text("The answer is 42."), done(adapters.StopEndTurn))},
			want: conversation.ExitOK, stdout: "The answer is 42.\n", stderr: []string{"│ Let me read the file.", "│ Now the other one.", "→ Read t1 [read]"}},
		{name: "answer before a trailing tool call", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(
			text("Summary: fine."), toolCall("t1"), done(adapters.StopEndTurn))},
			want: conversation.ExitOK, stdout: "Summary: fine.\n"},
		{name: "failed run keeps all text", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(
			text("Reading."), toolCall("t1"), text("Half an ans"), agentErr("fake exited unexpectedly (exit code 3): "+crashDetail, adapters.CodeCrash, crashDetail, true),
			done(adapters.StopEndTurn))},
			want: conversation.ExitAgentError, stdout: "Reading.\n\nHalf an ans\n",
			stderr:   []string{"hub: fake exited unexpectedly (exit code 3) (exit 1)\n", "  | stderr line 1\n", "  | Traceback: boom\n"},
			errCount: map[string]int{"Traceback: boom": 1}},
		{name: "earlier fatal error still shown", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(
			agentErr("first failure", "provider", "", true), agentErr("second failure", "crash", "", true), done(adapters.StopEndTurn))},
			want: conversation.ExitAgentError, stderr: []string{"error: first failure [provider]", "hub: second failure (exit 1)"}},
		{name: "not logged in without an auth code", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(
			agentErr("claude: Not logged in · Please run /login", "provider", "", true), done(adapters.StopEndTurn))},
			want: conversation.ExitNotAuthenticated, stderr: []string{"not authenticated: claude: Not logged in", "hub doctor --agent fake"}},
		{name: "prompt rejected with a warning only", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(
			agentErr("pi rejected the prompt: out of credits", "protocol", "", false), done(adapters.StopEndTurn))},
			want: conversation.ExitAgentError, stderr: []string{"the agent answered only with an error: pi rejected the prompt: out of credits"}},
		{name: "prompt rejected for a missing key", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(
			agentErr("pi rejected the prompt: No API key found for the selected model.\n\nUse /login", "protocol", "", false), done(adapters.StopEndTurn))},
			want: conversation.ExitNotAuthenticated, stderr: []string{"not authenticated: pi rejected the prompt: No API key found for the selected model.; Use /login"}},
		{name: "retry warning then an answer", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(
			agentErr("rate limited, retrying", "rate_limit", "", false), text("ok"), done(adapters.StopEndTurn))},
			want: conversation.ExitOK, stdout: "ok\n", stderr: []string{"warning: rate limited, retrying [rate_limit]"}},
		{name: "start error on one line with a doctor hint", a: &fakeAdapter{startErr: fmt.Errorf("acp agent failed to initialize: %w", errors.Join(adapters.ErrNotInstalled, errors.New("program not found: fake")))},
			want: conversation.ExitNotInstalled, stderr: []string{"agent not installed; program not found: fake (run 'hub doctor --agent fake') (exit 3)\n"}},
		{name: "start error that reads as auth", a: &fakeAdapter{startErr: errors.New("Gemini API key is missing or not configured.")},
			want: conversation.ExitNotAuthenticated, stderr: []string{"(run 'hub doctor --agent fake') (exit 4)"}},
		{name: "timeout names the last error", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: reconnecting},
			mod: reconnectingTimeout, want: conversation.ExitTimeout, stderr: []string{"timed out after 20ms (last warning: Reconnecting... 2/5)"}},
		{name: "agent without permission hook warns", a: &fakeAdapter{script: steps(text("done"), done(adapters.StopEndTurn))},
			want: conversation.ExitOK, stdout: "done\n", stderr: []string{"warning: fake cannot ask for permission: its tools run without asking, whatever --approve read-only says"}},
		{name: "no warning with --approve all", a: &fakeAdapter{script: steps(text("done"), done(adapters.StopEndTurn))},
			mod: func(o *Options) { o.Approve = conversation.ApproveAll }, want: conversation.ExitOK, stdout: "done\n", notErr: []string{"warning"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.a.name = "fake"
			s, out, errOut := runFake(t, context.Background(), c.a, c.mod)
			if s.ExitCode != c.want {
				t.Fatalf("exit %d, want %d (%s)\nstderr:\n%s", s.ExitCode, c.want, s.Error, errOut)
			}
			if c.stdout != "" && out != c.stdout {
				t.Errorf("stdout %q, want %q", out, c.stdout)
			}
			for _, f := range c.stderr {
				if !strings.Contains(errOut, f) {
					t.Errorf("stderr lacks %q:\n%s", f, errOut)
				}
			}
			for _, f := range c.notErr {
				if strings.Contains(errOut, f) {
					t.Errorf("stderr holds %q:\n%s", f, errOut)
				}
			}
			for f, n := range c.errCount {
				if got := strings.Count(errOut, f); got != n {
					t.Errorf("stderr holds %q %d times, want %d:\n%s", f, got, n, errOut)
				}
			}
		})
	}
}

func TestRun_JSONLSummaryFieldsAlwaysPresent(t *testing.T) {
	cases := []struct {
		name string
		a    *fakeAdapter
		mod  func(*Options)
		want int
	}{
		{name: "completed without usage", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(text("x"), done(adapters.StopEndTurn))}, want: conversation.ExitOK},
		{name: "usage error", a: &fakeAdapter{}, mod: func(o *Options) { o.Agent = "ghost" }, want: conversation.ExitUsage},
		{name: "stream cut", a: &fakeAdapter{caps: adapters.Capabilities{Permissions: true}, script: steps(text("x"))}, want: conversation.ExitAgentError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.a.name = "fake"
			s, out, _ := runFake(t, context.Background(), c.a, func(o *Options) {
				o.Format = FormatJSONL
				if c.mod != nil {
					c.mod(o)
				}
			})
			if s.ExitCode != c.want {
				t.Fatalf("exit %d, want %d", s.ExitCode, c.want)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var sum map[string]json.RawMessage
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"v", "type", "stopReason", "agentSessionId", "usage", "durationMs", "denied", "exitCode"} {
				if _, ok := sum[k]; !ok {
					t.Errorf("summary lacks %q: %s", k, lines[len(lines)-1])
				}
			}
			if string(sum["denied"]) != "[]" {
				t.Errorf("denied = %s, want []", sum["denied"])
			}
		})
	}
}

// On a terminal, text shows a spinner; jsonl leaves stderr alone.
func TestRun_SpinnerOnlyInTextOnATerminal(t *testing.T) {
	for _, c := range []struct {
		format  Format
		spinner bool
	}{{FormatText, true}, {FormatJSONL, false}} {
		t.Run(string(c.format), func(t *testing.T) {
			// The spinner's line is cleared before output and at the end,
			// whether or not it ticked.
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true}, script: steps(done(adapters.StopEndTurn))}
			_, _, errOut := runFake(t, context.Background(), a, func(o *Options) { o.Format, o.StderrTTY, o.Now = c.format, true, time.Now })
			if got := strings.Contains(errOut, "\r\x1b[K"); got != c.spinner {
				t.Fatalf("spinner shown = %v, want %v; stderr %q", got, c.spinner, errOut)
			}
		})
	}
}
