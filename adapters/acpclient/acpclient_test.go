package acpclient

import (
	"github.com/hubdev/hub/internal/proc/proctest"

	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/proc"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		runFakeAgent()
		os.Exit(0)
	}
	exits = fixture.WatchExits()
	proctest.Main(m, nil)
}

// exits counts the waits for the exit of a process a test watches.
var exits *fixture.Exits

// An agent that answered its prompt with an error runs on: Exit reads
// nil at once, never waiting for an exit that is not coming.
func TestSession_ExitOfALiveAgentIsAtOnce(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	waits := exits.Watch(t, s.proc)
	prompt(t, s, "modelerror", nil)
	if x := s.Exit(); x != nil || waits.Load() != 0 || s.proc.Exited() {
		t.Errorf("Exit() = %+v after %d waits for the exit, running %v; want nil at once while it runs", x, waits.Load(), !s.proc.Exited())
	}
}

func fakeAdapter(t *testing.T) *Adapter {
	t.Helper()
	return New(Config{
		Name: "fake", Argv: []string{os.Args[0]}, Env: map[string]string{fakeEnv: "1"},
		InitTimeout: 20 * time.Second, StopGrace: time.Second,
		// The fake repeats model errors as "[Error]" chunks, as qodercli does.
		Quirks: errorChunkQuirks, Logger: zerolog.Nop(),
	})
}

func startFake(t *testing.T, opts adapters.SessionOptions) *Session {
	t.Helper()
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	s, err := fakeAdapter(t).Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s.(*Session)
}

// collect drains a turn, answering permissions with decide.
func collect(t *testing.T, ch <-chan adapters.Event, decide func(*adapters.PermissionRequest)) []adapters.Event {
	t.Helper()
	var evs []adapters.Event
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				if len(evs) == 0 || evs[len(evs)-1].Type != adapters.EventDone {
					t.Fatalf("stream closed without done: %+v", evs)
				}
				return evs
			}
			if ev.Type == adapters.EventPermission && decide != nil {
				decide(ev.Permission)
			}
			evs = append(evs, ev)
		case <-timeout:
			t.Fatalf("turn did not end; got %+v", evs)
		}
	}
}

func texts(evs []adapters.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Type == adapters.EventText {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func last(evs []adapters.Event) adapters.Event { return evs[len(evs)-1] }

func prompt(t *testing.T, s *Session, text string, decide func(*adapters.PermissionRequest)) []adapters.Event {
	t.Helper()
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt(text))
	if err != nil {
		t.Fatal(err)
	}
	return collect(t, ch, decide)
}

// SessionArgv's command line starts the session's agent (the project's
// untrusted files left out), and its notice opens the first turn only.
func TestSession_SessionArgvAndNotice(t *testing.T) {
	a := fakeAdapter(t)
	a.cfg.Argv = []string{"no-such-agent-program"}
	a.cfg.SessionArgv = func(opts adapters.SessionOptions) ([]string, string) {
		return []string{os.Args[0]}, "runs without " + opts.Cwd
	}
	cwd := t.TempDir()
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	warned := func(evs []adapters.Event) bool {
		return slices.ContainsFunc(evs, func(e adapters.Event) bool {
			return e.Error != nil && e.Error.Code == adapters.CodeWarning && e.Error.Message == "runs without "+cwd
		})
	}
	if evs := prompt(t, s.(*Session), "hello", nil); !warned(evs) {
		t.Errorf("first turn = %+v, want the notice", evs)
	}
	if evs := prompt(t, s.(*Session), "again", nil); warned(evs) {
		t.Errorf("second turn = %+v, want no notice", evs)
	}
}

func TestSession_UpdatesForwarded(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	if s.ID() != "fake-1" {
		t.Fatalf("ID = %q", s.ID())
	}
	evs := prompt(t, s, "hello", nil)
	var types []string
	for _, ev := range evs {
		types = append(types, string(ev.Type))
	}
	want := "session_info commands thought text plan usage done"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("event types = %q, want %q", got, want)
	}
	if evs[0].Session.AgentSessionID != "fake-1" {
		t.Fatalf("session info %+v, want the agent's session id (the hub resumes with it)", evs[0].Session)
	}
	if evs[3].Text != "Hello" || evs[5].Usage.InputTokens != 10 || last(evs).StopReason != adapters.StopEndTurn {
		t.Fatalf("unexpected events %+v", evs)
	}
	// The session continues; its id was already reported.
	again := prompt(t, s, "again", nil)
	if got := texts(again); got != "echo:again" || again[0].Type == adapters.EventSessionInfo {
		t.Fatalf("second turn = %+v", again)
	}
}

func TestSession_Permission(t *testing.T) {
	tests := []struct {
		name     string
		decision adapters.PermissionDecision
		text     string
		status   adapters.ToolStatus
		stop     adapters.StopReason
	}{
		{"allow", adapters.PermissionDecision{Kind: adapters.AllowOnce}, "ran", adapters.StatusCompleted, adapters.StopEndTurn},
		{"allow always maps to once", adapters.PermissionDecision{Kind: adapters.AllowAlways}, "ran", adapters.StatusCompleted, adapters.StopEndTurn},
		{"reject", adapters.PermissionDecision{Kind: adapters.RejectOnce}, "rejected:no-1", adapters.StatusFailed, adapters.StopEndTurn},
		{"cancelled", adapters.PermissionDecision{Cancelled: true}, "", adapters.StatusFailed, adapters.StopCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startFake(t, adapters.SessionOptions{})
			var seen *adapters.PermissionRequest
			evs := prompt(t, s, "perm", func(pr *adapters.PermissionRequest) { seen = pr; pr.Respond(tt.decision) })
			if seen == nil || seen.Tool.ID != "t1" || len(seen.Options) != 2 || seen.Options[0].ID != "yes-1" {
				t.Fatalf("permission event = %+v", seen)
			}
			if got := texts(evs); got != tt.text {
				t.Errorf("text = %q, want %q", got, tt.text)
			}
			var status adapters.ToolStatus
			for _, ev := range evs {
				if ev.Type == adapters.EventToolUpdate {
					status = ev.Tool.Status
				}
			}
			if status != tt.status || last(evs).StopReason != tt.stop {
				t.Errorf("status=%s stop=%s, want %s %s", status, last(evs).StopReason, tt.status, tt.stop)
			}
		})
	}
}

// A permission request the agent withdraws ($/cancel_request) is answered
// "cancelled" at once, whoever still asks the user, and the turn goes on.
func TestSession_WithdrawnPermissionIsCancelled(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	var asked *adapters.PermissionRequest
	evs := prompt(t, s, "withdraw", func(pr *adapters.PermissionRequest) { asked = pr }) // never answered
	if got := texts(evs); got != `withdrawn:{"outcome":{"outcome":"cancelled"}}` {
		t.Fatalf("the agent heard %q", got)
	}
	if d := <-asked.Decision(); !d.Cancelled {
		t.Fatalf("the request was decided %+v", d)
	}
}

type fakeEditor struct {
	mu    sync.Mutex
	calls []string
}

func (e *fakeEditor) CanReadFile() bool  { return true }
func (e *fakeEditor) CanWriteFile() bool { return true }
func (e *fakeEditor) CanTerminal() bool  { return false }
func (e *fakeEditor) ReadTextFile(context.Context, string, int, int) (string, error) {
	return "", errors.New("unused")
}
func (e *fakeEditor) WriteTextFile(context.Context, string, string) error {
	return errors.New("unused")
}
func (e *fakeEditor) Call(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	e.mu.Lock()
	e.calls = append(e.calls, method+" "+string(params))
	e.mu.Unlock()
	if method == "fs/read_text_file" {
		return json.RawMessage(`{"content":"from editor buffer"}`), nil
	}
	return json.RawMessage(`{}`), nil
}

func TestSession_FSForwardedToEditor(t *testing.T) {
	ed := &fakeEditor{}
	dir := t.TempDir()
	s := startFake(t, adapters.SessionOptions{Cwd: dir, Editor: ed})
	if got := texts(prompt(t, s, "/read "+filepath.Join(dir, "a.txt"), nil)); got != "read:from editor buffer" {
		t.Fatalf("read text = %q", got)
	}
	if got := texts(prompt(t, s, "/write "+filepath.Join(dir, "b.txt"), nil)); got != "write:{}" {
		t.Fatalf("write text = %q", got)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.calls) != 2 || !strings.HasPrefix(ed.calls[0], "fs/read_text_file ") || !strings.Contains(ed.calls[1], "written by agent") {
		t.Fatalf("editor calls = %q", ed.calls)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("write went to disk instead of the editor")
	}
}

func TestSession_FSServedLocally(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	s := startFake(t, adapters.SessionOptions{Cwd: dir})
	tests := []struct{ prompt, want string }{
		{"/read " + filepath.Join(dir, "a.txt"), "read:two\n"},
		{"/write " + filepath.Join(dir, "sub", "b.txt"), "write:{}"},
		{"/read " + outside, "read:" + `{"code":-32602,"message":` + jsonString("path "+outside+" is outside the session directory "+dir) + `}`},
		{"/read " + filepath.Join(dir, "missing"), "read:" + `{"code":-32002,"message":` + jsonString("file not found: "+filepath.Join(dir, "missing")) + `}`},
	}
	for _, tt := range tests {
		if got := texts(prompt(t, s, tt.prompt, allowAll)); got != tt.want {
			t.Errorf("%s: text = %q, want %q", tt.prompt, got, tt.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "b.txt")); err != nil || string(b) != "written by agent\n" {
		t.Fatalf("local write: %q %v", b, err)
	}
}

func TestSession_TerminalServedLocally(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	evs := prompt(t, s, "term", allowAll)
	got := texts(evs)
	if !strings.Contains(got, `exit:{"exitCode":4,"signal":null}`) || !strings.Contains(got, `"output":"term-out\n"`) {
		t.Fatalf("text = %q", got)
	}
	for _, ev := range evs {
		if ev.Type == adapters.EventToolCall && ev.Tool.ID == "t2" && (len(ev.Tool.Content) != 1 || ev.Tool.Content[0].Text != "term-out\n") {
			t.Fatalf("local terminal not inlined: %+v", ev.Tool.Content)
		}
	}
}

// What the agent says outside ACP (gemini's retries), noted into the
// session, is an event of the running turn and of no turn between turns.
func TestSession_NoteJoinsTheRunningTurn(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	retry := adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "retrying", Status: 500}}
	s.Note(retry)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("wait"))
	if err != nil {
		t.Fatal(err)
	}
	for ev := range ch {
		if ev.Type == adapters.EventError {
			t.Fatalf("a note from before the turn reached it: %+v", ev)
		}
		if ev.Text == "waiting" {
			break
		}
	}
	s.Note(retry)
	if ev := <-ch; ev.Type != adapters.EventError || ev.Error.Status != 500 {
		t.Fatalf("event %+v, want the noted retry", ev)
	}
	cancel()
	collect(t, ch, nil)
}

func TestSession_CancelEndsCancelled(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("wait"))
	if err != nil {
		t.Fatal(err)
	}
	if ev := <-ch; ev.Type != adapters.EventSessionInfo {
		t.Fatalf("first event %+v", ev)
	}
	if ev := <-ch; ev.Type != adapters.EventCommands {
		t.Fatalf("first event %+v", ev)
	}
	if ev := <-ch; ev.Text != "waiting" {
		t.Fatalf("second event %+v", ev)
	}
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("x"), func(adapters.Event) {}); !errors.Is(err, adapters.ErrBusy) {
		t.Fatalf("concurrent prompt err = %v, want ErrBusy", err)
	}
	cancel()
	evs := collect(t, ch, nil)
	if last(evs).StopReason != adapters.StopCancelled {
		t.Fatalf("stop = %q", last(evs).StopReason)
	}
	if got := texts(prompt(t, s, "after", nil)); got != "echo:after" {
		t.Fatalf("turn after cancel = %q", got)
	}
}

func TestSession_CrashReportsStderr(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	evs := prompt(t, s, "crash", nil)
	var e *adapters.ErrorInfo
	for _, ev := range evs {
		if ev.Type == adapters.EventError {
			e = ev.Error
		}
	}
	if e == nil || e.Code != adapters.CodeCrash || !e.Fatal || !strings.Contains(e.Message, "exit code 3") ||
		!strings.HasSuffix(e.Message, ": panic: fake agent exploded") || !strings.Contains(e.Detail, "loading model") {
		t.Fatalf("error = %+v", e)
	}
	if got := texts(evs); !strings.HasSuffix(got, "partial 499;") {
		t.Errorf("output written just before the crash was lost: text ends %q", got[max(0, len(got)-40):])
	}
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("x"), func(adapters.Event) {}); !errors.Is(err, adapters.ErrClosed) {
		t.Fatalf("prompt after crash err = %v", err)
	}
	if x := s.Exit(); x == nil || !strings.Contains(x.Message, "exit code 3") || !strings.Contains(x.Detail, "loading model") {
		t.Fatalf("Exit() = %+v", x)
	}
}

// An agent that closes its output between turns but keeps running is
// waited for once, then stopped, as every agent is; the next prompt and
// Exit tell it in the same words.
func TestSession_ClosedOutputStillRunningIsStopped(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	if stop := last(prompt(t, s, "mute", nil)).StopReason; stop != adapters.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	<-s.proc.Done() // no prompt needed to stop it
	_, err := s.Prompt(context.Background(), adapters.TextPrompt("x"), func(adapters.Event) {})
	te := (*adapters.TurnError)(nil)
	if !errors.As(err, &te) || !strings.HasPrefix(te.Info.Message, s.a.cfg.Name+" closed its output and was stopped (") ||
		!strings.HasSuffix(te.Info.Message, ": fatal: stdout lost") {
		t.Fatalf("prompt after the stop: %v", err)
	}
	if x := s.Exit(); x == nil || x.Message != te.Info.Message {
		t.Errorf("Exit() = %+v, want %q", x, te.Info.Message)
	}
}

func TestSession_ResumeViaLoad(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{ResumeID: "old-7"})
	if s.ID() != "old-7" {
		t.Fatalf("ID = %q", s.ID())
	}
	evs := prompt(t, s, "who", nil)
	if got := texts(evs); got != "session=old-7" {
		t.Fatalf("text = %q (replayed history must not leak into the turn)", got)
	}
}

func TestAdapter_AuthRequired(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "needs-auth")
	_ = os.Mkdir(dir, 0o755)
	before := proc.Live()
	_, err := fakeAdapter(t).Start(context.Background(), adapters.SessionOptions{Cwd: dir})
	if !errors.Is(err, adapters.ErrNotAuthenticated) || !strings.Contains(err.Error(), "Authentication required") {
		t.Fatalf("err = %v", err)
	}
	if proc.Live() != before {
		t.Fatalf("agent process left running")
	}
}

func TestAdapter_ModelsLearnedAndSet(t *testing.T) {
	a := fakeAdapter(t)
	if !a.Capabilities().ModesLater { // a persona's mode is set at start, not refused before it
		t.Fatal("an ACP agent's modes, unknown before its first session, are not said to come later")
	}
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), Model: "smart"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := a.Capabilities()
	if len(c.Models) != 2 || c.Models[1].ID != "smart" || c.DefaultModel != "fast" {
		t.Fatalf("models = %+v default %q", c.Models, c.DefaultModel)
	}
	if err := s.(*Session).SetMode(context.Background(), "x"); err == nil {
		t.Fatal("SetMode on an agent without modes should fail")
	}
}

func TestAdapter_FallbackWhenNotACP(t *testing.T) {
	var gotErr error
	a := New(Config{Name: "notacp", Argv: proctest.Command("out:not acp\n", "exit:1"), Logger: zerolog.Nop(),
		Fallback: func(_ context.Context, _ adapters.SessionOptions, err error) (adapters.Session, error) {
			gotErr = err
			return nil, errors.New("fallback used")
		}})
	_, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err == nil || err.Error() != "fallback used" || !errors.Is(gotErr, ErrInitialize) {
		t.Fatalf("err = %v, acp err = %v", err, gotErr)
	}
	_, err = New(Config{Name: "missing", Argv: []string{"/nonexistent/agent"}, Logger: zerolog.Nop(),
		Fallback: func(context.Context, adapters.SessionOptions, error) (adapters.Session, error) {
			return nil, errors.New("no")
		},
	}).Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if !errors.Is(err, adapters.ErrNotInstalled) {
		t.Fatalf("missing binary err = %v", err)
	}
}

// A working directory that does not exist is a usage error naming it, not
// "agent not installed", and it does not send the agent to its fallback.
func TestAdapter_BadCwdIsNotNotInstalled(t *testing.T) {
	cwd := filepath.Join(t.TempDir(), "gone")
	fellBack := false
	_, err := New(Config{Name: "demo", Argv: proctest.Command("exit:1"), Logger: zerolog.Nop(),
		Fallback: func(context.Context, adapters.SessionOptions, error) (adapters.Session, error) {
			fellBack = true
			return nil, errors.New("fallback used")
		},
	}).Start(context.Background(), adapters.SessionOptions{Cwd: cwd})
	if !errors.Is(err, adapters.ErrBadCwd) || errors.Is(err, adapters.ErrNotInstalled) || !strings.Contains(err.Error(), cwd) {
		t.Fatalf("err = %v, want a bad working directory naming %s", err, cwd)
	}
	if fellBack {
		t.Fatal("a bad working directory sent the agent to its fallback")
	}
}

func TestDecide_MapsKinds(t *testing.T) {
	pr := adapters.NewPermissionRequest(adapters.ToolCall{ID: "x"}, []adapters.PermissionOption{
		{ID: "a", Kind: adapters.AllowAlways}, {ID: "r", Kind: adapters.RejectOnce}})
	tests := []struct {
		d    adapters.PermissionDecision
		want string
	}{
		{adapters.PermissionDecision{Kind: adapters.AllowOnce}, "selected:a"},
		{adapters.PermissionDecision{OptionID: "r"}, "selected:r"},
		{adapters.PermissionDecision{Kind: adapters.RejectAlways}, "selected:r"},
		{adapters.PermissionDecision{OptionID: "zzz", Kind: adapters.AllowAlways}, "selected:a"},
		{adapters.PermissionDecision{Cancelled: true, Kind: adapters.AllowOnce}, "cancelled:"},
		{adapters.PermissionDecision{}, "cancelled:"},
	}
	for _, tt := range tests {
		r := decide(pr, tt.d)
		if got := r.Outcome.Outcome + ":" + r.Outcome.OptionID; got != tt.want {
			t.Errorf("decide(%+v) = %s, want %s", tt.d, got, tt.want)
		}
	}
}

// Close waits for the agent's answer to session/close or its exit, and
// only CloseWait for an agent that never answers: a Close that waited out
// its CloseWait (an hour in the rows where the agent answers or exits) or
// a silent agent would hang the test instead. The agent logs the close
// before it answers or exits, so the log is read after the event.
func TestSession_CloseSendsSessionClose(t *testing.T) {
	tests := []struct {
		mode string
		want string
		wait time.Duration
	}{
		{"advertise", "close fake-1\n", time.Hour},
		{"off", "", time.Hour},
		{"exit", "close fake-1\n", time.Hour},
		{"hang", "", 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "close.log")
			a := fakeAdapter(t)
			a.cfg.CloseWait = tt.wait
			s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(),
				Env: map[string]string{fakeCloseEnv: tt.mode + ":" + log}})
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(prompt(t, s.(*Session), "hi", nil)); got != "echo:hi" {
				t.Fatalf("turn = %q", got)
			}
			_ = s.Close()
			got, _ := os.ReadFile(log)
			if string(got) != tt.want {
				t.Errorf("agent saw %q, want %q", got, tt.want)
			}
		})
	}
}

// A member of an unexpected type in the agent's answers to initialize and
// session/new costs only that member, never the session.
func TestStart_OddMembersInAnswersStillStart(t *testing.T) {
	a := fakeAdapter(t)
	a.cfg.Env = map[string]string{fakeEnv: "1", fakeVersionEnv: "odd"}
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := texts(prompt(t, s.(*Session), "hi", nil)); got != "echo:hi" || !s.(*Session).caps.PromptCapabilities.Audio {
		t.Fatalf("turn = %q, audio %v: want the session with what the agent said", got, s.(*Session).caps.PromptCapabilities.Audio)
	}
}

func TestSession_BeforeLoadHook(t *testing.T) {
	tests := []struct {
		name      string
		resume    string
		hookErr   error
		wantCalls int
	}{
		{"new session skips it", "", nil, 0},
		{"load runs it", "old-7", nil, 1},
		{"load goes ahead when it fails", "old-7", errors.New("disk full"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []string
			a := fakeAdapter(t)
			a.cfg.BeforeLoad = func(id string, env []string) error {
				if !slices.Contains(env, fakeEnv+"=1") {
					t.Errorf("hook env lacks the agent's env: %d entries", len(env))
				}
				calls = append(calls, id)
				return tt.hookErr
			}
			s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), ResumeID: tt.resume})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if len(calls) != tt.wantCalls || (tt.wantCalls > 0 && calls[0] != tt.resume) {
				t.Fatalf("hook calls = %q, want %d with %q", calls, tt.wantCalls, tt.resume)
			}
			if tt.resume != "" && s.ID() != tt.resume {
				t.Fatalf("ID = %q, want the loaded %q", s.ID(), tt.resume)
			}
		})
	}
}
