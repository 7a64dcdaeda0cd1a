//go:build unix

package pi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/testlog"
)

// fakeAdapter returns an adapter whose "pi" is this test binary in the
// given fake scenario, and the file the fake writes its argv to.
func fakeAdapter(t *testing.T, scenario string) (*Adapter, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	argsFile := filepath.Join(t.TempDir(), "argv")
	a := NewWithOptions(Options{Argv: []string{exe}, Provider: "mock", Model: "mock-model", Log: zerolog.Nop(),
		Env:       map[string]string{fakeEnvScenario: scenario, fakeEnvArgs: argsFile, fakeEnvData: data},
		StopGrace: time.Second})
	return a, argsFile
}

func startFake(t *testing.T, scenario string, so adapters.SessionOptions) (*session, string) {
	t.Helper()
	a, argsFile := fakeAdapter(t, scenario)
	if so.Cwd == "" {
		so.Cwd = t.TempDir()
	}
	s, err := a.Start(context.Background(), so)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s.(*session), argsFile
}

// drain waits for the turn's end with no wall-clock bound: a turn that
// never ends hangs the test.
func drain(t *testing.T, ch <-chan adapters.Event) []adapters.Event {
	t.Helper()
	var out []adapters.Event
	for ev := range ch {
		out = append(out, ev)
	}
	return out
}

func lastDone(t *testing.T, evs []adapters.Event) adapters.StopReason {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].Type != adapters.EventDone {
		t.Fatalf("turn did not end with done: %+v", evs)
	}
	return evs[len(evs)-1].StopReason
}

func textOf(evs []adapters.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == adapters.EventText {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func TestSession_TextTurn(t *testing.T) {
	s, _ := startFake(t, "text", adapters.SessionOptions{})
	if s.ID() != "fake-sess" {
		t.Errorf("ID = %q, want fake-sess", s.ID())
	}
	for turn := 1; turn <= 2; turn++ {
		ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("say hello"))
		if err != nil {
			t.Fatal(err)
		}
		evs := drain(t, ch)
		if got := textOf(evs); got != "Hi! say hello" {
			t.Errorf("turn %d text = %q", turn, got)
		}
		if r := lastDone(t, evs); r != adapters.StopEndTurn {
			t.Errorf("turn %d stop = %s", turn, r)
		}
		gotInfo := evs[0].Type == adapters.EventSessionInfo
		if gotInfo != (turn == 1) {
			t.Errorf("turn %d: session_info first = %v, want only on the first turn", turn, gotInfo)
		}
		if gotInfo && (evs[0].Session.AgentSessionID != "fake-sess" || evs[0].Session.Model != "mock/mock-model") {
			t.Errorf("session info = %+v", evs[0].Session)
		}
		for _, e := range evs {
			if e.Type == adapters.EventUsage && e.Usage.ContextSize != 128000 {
				t.Errorf("usage context size = %d, want 128000 from get_state", e.Usage.ContextSize)
			}
		}
	}
}

func TestSession_ToolUse(t *testing.T) {
	cwd := t.TempDir()
	s, _ := startFake(t, "tool", adapters.SessionOptions{Cwd: cwd})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("TOOLS"))
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, ch)
	calls, completed := map[string]adapters.ToolKind{}, 0
	for _, e := range evs {
		switch {
		case e.Type == adapters.EventToolCall:
			calls[e.Tool.ID] = e.Tool.Kind
			if e.Tool.Name == "write" && (len(e.Tool.Locations) != 1 || e.Tool.Locations[0].Path != filepath.Join(cwd, "notes.txt")) {
				t.Errorf("write locations = %+v, want notes.txt in %s", e.Tool.Locations, cwd)
			}
		case e.Type == adapters.EventToolUpdate && e.Tool.Status == adapters.StatusCompleted:
			completed++
			if _, ok := calls[e.Tool.ID]; !ok {
				t.Errorf("update for unannounced tool %s", e.Tool.ID)
			}
		}
	}
	if len(calls) != 8 || completed != 4 || calls["call_4"] != adapters.KindExecute {
		t.Errorf("calls=%v completed=%d, want 8 calls (bash=execute) and 4 completed", calls, completed)
	}
	if r := lastDone(t, evs); r != adapters.StopEndTurn {
		t.Errorf("stop = %s", r)
	}
}

func TestSession_AbortMidTool(t *testing.T) {
	s, _ := startFake(t, "abort", adapters.SessionOptions{})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("SLOWTOOL"))
	if err != nil {
		t.Fatal(err)
	}
	var evs []adapters.Event
	for ev := range ch {
		evs = append(evs, ev)
		if ev.Type == adapters.EventToolUpdate && len(ev.Tool.Content) > 0 && ev.Tool.Status == "" {
			if _, err := s.Prompt(context.Background(), adapters.TextPrompt("again"), func(adapters.Event) {}); !errors.Is(err, adapters.ErrBusy) {
				t.Errorf("second prompt during a turn: err = %v, want ErrBusy", err)
			}
			s.interrupt()
			s.interrupt() // idempotent
		}
	}
	if r := lastDone(t, evs); r != adapters.StopCancelled {
		t.Errorf("stop = %s, want cancelled", r)
	}
	if s.proc.Exited() {
		t.Fatal("pi exited on abort; it must stay up for the next prompt")
	}
	ch, err = fixture.Prompt(context.Background(), s, adapters.TextPrompt("say hello"))
	if err != nil {
		t.Fatal(err)
	}
	if evs := drain(t, ch); textOf(evs) != "Hi! say hello" || lastDone(t, evs) != adapters.StopEndTurn {
		t.Errorf("turn after abort: %+v", evs)
	}
}

func TestSession_ContextCancelAborts(t *testing.T) {
	s, _ := startFake(t, "abort", adapters.SessionOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("SLOWTOOL"))
	if err != nil {
		t.Fatal(err)
	}
	var evs []adapters.Event
	for ev := range ch {
		evs = append(evs, ev)
		if ev.Type == adapters.EventToolUpdate && len(ev.Tool.Content) > 0 {
			cancel()
		}
	}
	if r := lastDone(t, evs); r != adapters.StopCancelled {
		t.Errorf("stop = %s, want cancelled", r)
	}
}

func TestSession_CrashReportsStderr(t *testing.T) {
	s, _ := startFake(t, "crash", adapters.SessionOptions{})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("hi"))
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, ch)
	var crash *adapters.ErrorInfo
	for _, e := range evs {
		if e.Type == adapters.EventError {
			crash = e.Error
		}
	}
	if crash == nil || crash.Code != adapters.CodeCrash || !crash.Fatal || !strings.Contains(crash.Detail, "fatal: provider exploded") ||
		!strings.Contains(crash.Message, "pi exited unexpectedly (exit code 3): fatal: provider exploded") {
		t.Fatalf("crash error = %+v", crash)
	}
	if r := lastDone(t, evs); r != adapters.StopEndTurn {
		t.Errorf("stop = %s", r)
	}
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("again"), func(adapters.Event) {}); !errors.Is(err, adapters.ErrClosed) {
		t.Errorf("prompt after crash: err = %v, want ErrClosed", err)
	}
}

// A pi that closes its output but keeps running ends the turn as a crash
// after one wait: hub stops it, and the crash tells how it ended and its
// stderr, as the next prompt's error does.
func TestSession_ClosedOutputStillRunningIsStopped(t *testing.T) {
	s, _ := startFake(t, "mute", adapters.SessionOptions{})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("hi"))
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, ch)
	if len(evs) < 2 || evs[len(evs)-2].Type != adapters.EventError || lastDone(t, evs) != adapters.StopEndTurn {
		t.Fatalf("events %+v, want the crash and done", evs)
	}
	crash := evs[len(evs)-2].Error
	if crash.Code != adapters.CodeCrash || !strings.HasPrefix(crash.Message, "pi closed its output and was stopped (") ||
		!strings.HasSuffix(crash.Message, ": fatal: stdout lost") {
		t.Errorf("crash = %+v", crash)
	}
	_, err = s.Prompt(context.Background(), adapters.TextPrompt("again"), func(adapters.Event) {})
	if te := (*adapters.TurnError)(nil); !errors.As(err, &te) || te.Info.Message != crash.Message {
		t.Errorf("prompt after the stop: %v, want the turn's %q", err, crash.Message)
	}
}

func TestAdapter_StartFailureShowsStderr(t *testing.T) {
	a, _ := fakeAdapter(t, "exit-at-start")
	_, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), ResumeID: "nope"})
	if !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), "No session found matching 'nope'") {
		t.Fatalf("err = %v, want ErrStart with pi's stderr", err)
	}
}

func TestAdapter_NotInstalled(t *testing.T) {
	a := NewWithOptions(Options{Argv: []string{"/nonexistent/pi-hub-test"}})
	if _, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()}); !errors.Is(err, adapters.ErrNotInstalled) {
		t.Fatalf("err = %v, want ErrNotInstalled", err)
	}
}

func TestAdapter_Args(t *testing.T) {
	a := NewWithOptions(Options{Argv: []string{"pi", "--offline"}, Provider: "mock", Model: "m1", Tools: "read,ls", SessionDir: "/s"})
	tests := []struct {
		name string
		so   adapters.SessionOptions
		want []string
	}{
		{"new", adapters.SessionOptions{},
			[]string{"--offline", "--mode", "rpc", "--provider", "mock", "--model", "m1", "--session-dir", "/s", "--tools", "read,ls"}},
		{"model override and instructions", adapters.SessionOptions{Model: "mock/m2", Instructions: "Be brief."},
			[]string{"--offline", "--mode", "rpc", "--provider", "mock", "--model", "mock/m2", "--session-dir", "/s", "--tools", "read,ls", "--append-system-prompt", "Be brief."}},
		{"resume keeps the session's model", adapters.SessionOptions{ResumeID: "01a2-uuid"},
			[]string{"--offline", "--mode", "rpc", "--session", "01a2-uuid", "--session-dir", "/s", "--tools", "read,ls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := a.Args(tt.so); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("args = %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSession_ResumePassesSession(t *testing.T) {
	s, argsFile := startFake(t, "text", adapters.SessionOptions{ResumeID: "fake-sess"})
	argv, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(argv), "--session\nfake-sess") || strings.Contains(string(argv), "--provider") {
		t.Errorf("argv = %q, want --session fake-sess and no --provider", argv)
	}
	if s.ID() != "fake-sess" {
		t.Errorf("ID = %q", s.ID())
	}
}

func TestSession_CloseStopsProcess(t *testing.T) {
	s, _ := startFake(t, "abort", adapters.SessionOptions{})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("SLOWTOOL"))
	if err != nil {
		t.Fatal(err)
	}
	for ev := range ch {
		if ev.Type == adapters.EventToolUpdate && len(ev.Tool.Content) > 0 {
			go func() { _ = s.Close() }()
		}
		if ev.Type == adapters.EventDone && ev.StopReason != adapters.StopCancelled {
			t.Errorf("stop on close = %s, want cancelled", ev.StopReason)
		}
	}
	_ = s.Close()
	if !s.proc.Exited() || syscall.Kill(-s.proc.Pid(), 0) == nil {
		t.Error("pi process group still alive after Close")
	}
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("x"), func(adapters.Event) {}); !errors.Is(err, adapters.ErrClosed) {
		t.Errorf("prompt after close: %v", err)
	}
}

func TestSession_SetModel(t *testing.T) {
	s, _ := startFake(t, "text", adapters.SessionOptions{})
	if err := s.SetModel(context.Background(), "mock/other"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMode(context.Background(), "plan"); !errors.Is(err, adapters.ErrUnsupported) {
		t.Errorf("SetMode err = %v", err)
	}
}

func TestAdapter_CapabilitiesSayNoPermissions(t *testing.T) {
	c := NewWithOptions(Options{}).Capabilities()
	if c.Permissions || !strings.Contains(c.Notes, "no permission hook") || c.TestedVersions != "0.73.1" || !c.Resume {
		t.Errorf("capabilities = %+v", c)
	}
}

func TestSession_RetryKeepsTurn(t *testing.T) {
	s, _ := startFake(t, "retry", adapters.SessionOptions{})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("say hi RETRY"))
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, ch)
	if got := textOf(evs); got != "Answer after the retry." {
		t.Errorf("text = %q, want the retried run's answer", got)
	}
	var notices []*adapters.ErrorInfo
	for _, e := range evs {
		if e.Type == adapters.EventError {
			notices = append(notices, e.Error)
		}
	}
	if len(notices) != 1 || notices[0].Fatal || notices[0].Code != adapters.CodeRateLimit || !strings.Contains(notices[0].Message, "pi retries in 2s") {
		t.Errorf("retry notices = %+v, want one non-fatal rate_limit notice", notices)
	}
	if r := lastDone(t, evs); r != adapters.StopEndTurn {
		t.Errorf("stop = %s", r)
	}
}

func TestSession_FailedRunWithoutRetryEnds(t *testing.T) {
	s, _ := startFake(t, "no-retry", adapters.SessionOptions{})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("say hi RETRY"))
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, ch)
	if r := lastDone(t, evs); r != adapters.StopEndTurn {
		t.Errorf("stop = %s", r)
	}
	found := false
	for _, e := range evs {
		found = found || (e.Type == adapters.EventError && e.Error.Code == adapters.CodeRateLimit)
	}
	if !found {
		t.Errorf("no rate_limit error in %+v", evs)
	}
	// The session stays usable for the next prompt.
	ch, err = fixture.Prompt(context.Background(), s, adapters.TextPrompt("again"))
	if err != nil {
		t.Fatal(err)
	}
	if r := lastDone(t, drain(t, ch)); r != adapters.StopEndTurn {
		t.Errorf("second stop = %s", r)
	}
}

func TestSession_UnknownRecordWarnsWithVersion(t *testing.T) {
	a, _ := fakeAdapter(t, "unknown")
	var logs testlog.Buffer
	a.opts.Log = zerolog.New(&logs)
	a.unknown = newUnknownRecords(a.opts)
	sess, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	ch, err := fixture.Prompt(context.Background(), sess, adapters.TextPrompt("say hello"))
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, ch)
	raw := false
	for _, e := range evs {
		raw = raw || (e.Type == adapters.EventRaw && e.Source == "pi:agent_settled")
	}
	if !raw || textOf(evs) != "Hi! say hello" {
		t.Errorf("unknown record not passed on raw beside the answer: %+v", evs)
	}
	w := logs.AwaitRecords(t, "warn", 1)[0]
	if w["record"] != "pi:agent_settled" || w["agent_version"] != "0.73.1-fake" || w["tested"] != TestedVersions {
		t.Errorf("warning = %v, want pi:agent_settled naming pi 0.73.1-fake and the tested version", w)
	}
}

func TestSession_RejectedPromptIsFatalAuth(t *testing.T) {
	s, _ := startFake(t, "no-key", adapters.SessionOptions{})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("hi"))
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, ch)
	var e *adapters.ErrorInfo
	for _, ev := range evs {
		if ev.Type == adapters.EventError {
			e = ev.Error
		}
	}
	if e == nil || e.Code != adapters.CodeAuth || !e.Fatal || !strings.Contains(e.Message, "No API key found") {
		t.Fatalf("error = %+v, want a fatal auth error naming the missing key", e)
	}
	if r := lastDone(t, evs); r != adapters.StopEndTurn {
		t.Errorf("stop = %s", r)
	}
}

func TestSession_SteerGoesToTheRunningTurn(t *testing.T) {
	steered := filepath.Join(t.TempDir(), "steered")
	t.Setenv(fakeEnvSteer, steered)
	s, _ := startFake(t, "abort", adapters.SessionOptions{})
	if err := s.Steer(context.Background(), adapters.TextPrompt("early")); !errors.Is(err, adapters.ErrNoTurn) {
		t.Fatalf("steer with no turn: %v, want ErrNoTurn", err)
	}
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("SLOWTOOL"))
	if err != nil {
		t.Fatal(err)
	}
	steeredOnce := false
	for ev := range ch {
		if ev.Type == adapters.EventToolUpdate && len(ev.Tool.Content) > 0 && !steeredOnce {
			steeredOnce = true
			if err := s.Steer(context.Background(), adapters.TextPrompt("use the fast path")); err != nil {
				t.Fatalf("steer mid-turn: %v", err)
			}
		}
	}
	if got, _ := os.ReadFile(steered); string(got) != "use the fast path" {
		t.Fatalf("pi got steer message %q", got)
	}
}
