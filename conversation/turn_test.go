package conversation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestMain(m *testing.M) { proctest.Main(m, nil) }

// fakeSession plays events, then ends the turn with stop and err; exit,
// when set, is what it says of its process (adapters.Exiter).
type fakeSession struct {
	events   []adapters.Event
	stop     adapters.StopReason
	err      error
	prompted bool
	write    func() // what the agent does to the workspace
}

func (f *fakeSession) ID() string   { return "agent-1" }
func (f *fakeSession) Close() error { return nil }
func (f *fakeSession) Prompt(_ context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	f.prompted = true
	if f.write != nil {
		f.write()
	}
	for _, ev := range f.events {
		emit(ev)
	}
	return f.stop, f.err
}

type exitingSession struct {
	*fakeSession
	exit *adapters.ErrorInfo
}

func (e exitingSession) Exit() *adapters.ErrorInfo { return e.exit }

func TestRunTurn_ClassifiesHowTheTurnEnded(t *testing.T) {
	deny, err := hooks.New(map[string][]config.HookConfig{
		"UserPromptSubmit": {{Command: proctest.ShellCommand("err:secret in prompt\n", "exit:2")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	pipe := errors.New("claude: send prompt: write |1: broken pipe")
	crash := &adapters.ErrorInfo{Message: "claude exited: exit status 3: panic", Code: adapters.CodeCrash, Detail: "panic\nat main.go:1", Fatal: true}
	usage := func(in int64) adapters.Event {
		return adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: in, OutputTokens: in / 2, PerRequest: true}}
	}
	tests := []struct {
		name     string
		sess     *fakeSession
		exit     *adapters.ErrorInfo
		hooks    *hooks.Runner
		prompted bool
		stop     adapters.StopReason
		code     adapters.ErrorCode // of Outcome.Failure; "" for none
		detail   string
		errIs    error
		errHas   string
	}{
		{name: "completed", sess: &fakeSession{events: []adapters.Event{usage(10), usage(10)}, stop: adapters.StopMaxTokens},
			prompted: true, stop: adapters.StopMaxTokens},
		{name: "a hook denies the prompt", sess: &fakeSession{}, hooks: deny, stop: adapters.StopEndTurn, code: adapters.CodeHook},
		{name: "crash before the prompt reached the agent", sess: &fakeSession{err: pipe}, exit: crash, prompted: true,
			stop: "", code: adapters.CodeCrash, detail: crash.Detail, errIs: pipe, errHas: "exit status 3"},
		{name: "the agent is gone without an exit status", sess: &fakeSession{err: adapters.ErrClosed}, prompted: true,
			code: adapters.CodeCrash, errIs: adapters.ErrClosed},
		{name: "turn error", sess: &fakeSession{stop: adapters.StopEndTurn, err: &adapters.TurnError{Info: *crash}}, prompted: true,
			stop: adapters.StopEndTurn, code: adapters.CodeCrash, detail: crash.Detail},
		{name: "cancel timeout", sess: &fakeSession{stop: adapters.StopCancelled, err: adapters.ErrCancelTimeout}, prompted: true,
			stop: adapters.StopCancelled, errIs: adapters.ErrCancelTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sess adapters.Session = tt.sess
			if tt.exit != nil {
				sess = exitingSession{tt.sess, tt.exit}
			}
			obs := tt.hooks.Observe(hooks.Input{Cwd: t.TempDir()})
			defer obs.Close()
			var seen int
			oc, err := RunTurn(context.Background(), TurnSpec{Agent: "fake", Session: sess, Prompt: adapters.TextPrompt("hi"), Hooks: obs,
				Emit: func(adapters.Event) { seen++ }})
			var code adapters.ErrorCode
			var detail string
			if oc.Failure != nil {
				code, detail = oc.Failure.Code, oc.Failure.Detail
			}
			if tt.sess.prompted != tt.prompted || oc.Stop != tt.stop || code != tt.code || detail != tt.detail || seen != len(tt.sess.events) {
				t.Fatalf("prompted %v stop %q failure %+v, %d events seen", tt.sess.prompted, oc.Stop, oc.Failure, seen)
			}
			if (tt.errIs != nil && !errors.Is(err, tt.errIs)) || !strings.Contains(errText(err), tt.errHas) {
				t.Fatalf("error %v", err)
			}
			if oc.Digest.AgentSessionID != "agent-1" {
				t.Fatalf("digest %+v", oc.Digest)
			}
		})
	}
}

// The turn's end is read once, for every front end: answered, failed by
// the agent, stuck after a cancel, or lost (the prompt reached no agent),
// and whether the agent is gone.
func TestRunTurn_EndingIsReadOnce(t *testing.T) {
	crash := adapters.ErrorInfo{Message: "exit status 3", Code: adapters.CodeCrash, Fatal: true}
	auth := adapters.ErrorInfo{Message: "not logged in", Code: adapters.CodeAuth, Fatal: true}
	tests := []struct {
		name    string
		err     error
		exit    *adapters.ErrorInfo
		ending  Ending
		crashed bool
	}{
		{"answered", nil, nil, Answered, false},
		{"the agent's error", &adapters.TurnError{Info: auth}, nil, Failed, false},
		{"the agent's crash", &adapters.TurnError{Info: crash}, nil, Failed, true},
		{"stuck after a cancel", adapters.ErrCancelTimeout, nil, Stuck, false},
		{"closed", adapters.ErrClosed, nil, Lost, true},
		{"closed, exited logged out", adapters.ErrClosed, &auth, Lost, true},
		{"a broken pipe to a crashed agent", errors.New("write |1: broken pipe"), &crash, Lost, true},
		{"not taken", errors.New("session busy"), nil, Lost, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sess adapters.Session = &fakeSession{stop: adapters.StopEndTurn, err: tt.err}
			if tt.exit != nil {
				sess = exitingSession{sess.(*fakeSession), tt.exit}
			}
			oc, _ := RunTurn(context.Background(), TurnSpec{Agent: "fake", Session: sess, Prompt: adapters.TextPrompt("hi")})
			if oc.Ending != tt.ending || oc.Crashed != tt.crashed {
				t.Fatalf("ending %v, crashed %v; want %v, %v", oc.Ending, oc.Crashed, tt.ending, tt.crashed)
			}
		})
	}
}

// A turn cancelled before its prompt went (while its agent started, or a
// fallback agent took it over) ends cancelled; the agent gets nothing, and
// its lead (a briefing) is not taken: it stays for the next prompt.
func TestRunTurn_CancelledBeforeThePromptSendsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sess := &fakeSession{stop: adapters.StopEndTurn}
	taken := false
	oc, err := RunTurn(ctx, TurnSpec{Agent: "fake", Session: sess, Prompt: adapters.TextPrompt("hi"), Lead: func() string { taken = true; return "brief" }})
	if sess.prompted || taken || oc.Stop != adapters.StopCancelled || oc.Failure != nil || err != nil {
		t.Fatalf("prompted %v, lead taken %v, stop %q, failure %+v, error %v", sess.prompted, taken, oc.Stop, oc.Failure, err)
	}
}

// The prompt with its lead reached the agent once it answered anything or
// told it retries a model call (ahead of that event), or ended the turn
// itself, on a cancel too: it read the prompt. Never when it was gone,
// crashed or ignored the cancel before that, whatever else it told first.
func TestRunTurn_ReachedOnceTheAgentAnswered(t *testing.T) {
	text := adapters.Event{Type: adapters.EventText, Text: "hi"}
	crash := adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Code: adapters.CodeCrash, Message: "fake exited", Fatal: true}}
	info := adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: "agent-1"}}
	crashed := &adapters.TurnError{Info: *crash.Error}
	retry := adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "API request failed", Status: 529, Retry: true}}
	warning := adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "settings ignored", Code: adapters.CodeWarning}}
	tests := []struct {
		name string
		sess fakeSession
		want string // what the front end saw, in order
	}{
		{"answered", fakeSession{events: []adapters.Event{text}, stop: adapters.StopEndTurn}, "reached text"},
		{"ended with no event", fakeSession{stop: adapters.StopEndTurn}, "reached"},
		{"gone before the write", fakeSession{err: fmt.Errorf("write: %w", adapters.ErrClosed)}, ""},
		{"told its session, then exited", fakeSession{events: []adapters.Event{info}, err: fmt.Errorf("read: %w", adapters.ErrClosed)}, "session_info"},
		{"crashed before it answered", fakeSession{events: []adapters.Event{crash}, stop: adapters.StopEndTurn, err: crashed}, "error"},
		{"cancelled before it answered: it ended the turn", fakeSession{stop: adapters.StopCancelled}, "reached"},
		{"ignored the cancel", fakeSession{stop: adapters.StopCancelled, err: adapters.ErrCancelTimeout}, ""},
		{"told it retries, then crashed", fakeSession{events: []adapters.Event{retry, crash}, stop: adapters.StopEndTurn, err: crashed}, "reached error error"},
		{"warned, then crashed", fakeSession{events: []adapters.Event{warning, crash}, stop: adapters.StopEndTurn, err: crashed}, "error error"},
		{"crashed after it answered", fakeSession{events: []adapters.Event{text, crash}, stop: adapters.StopEndTurn, err: crashed}, "reached text error"},
		{"cancelled after it answered", fakeSession{events: []adapters.Event{text}, stop: adapters.StopCancelled}, "reached text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var saw []string
			_, _ = RunTurn(context.Background(), TurnSpec{Agent: "fake", Session: &tt.sess, Prompt: adapters.TextPrompt("hi"), Lead: func() string { return "brief" },
				Reached: func() { saw = append(saw, "reached") }, Emit: func(ev adapters.Event) { saw = append(saw, string(ev.Type)) }})
			if got := strings.Join(saw, " "); got != tt.want {
				t.Fatalf("the front end saw %q, want %q", got, tt.want)
			}
		})
	}
}

// A prompt an agent's gone process never took fails in one line that names
// the agent once, with its exit status and last stderr line (the tail in
// the failure's detail), whatever the agent wrapped its refusal in.
func TestRunTurn_AgentGoneNamesItOnce(t *testing.T) {
	argv := proctest.Command("err:first\n", "err:boom\n", "exit:3")
	p, err := proc.Start(context.Background(), proc.Spec{Path: argv[0], Args: argv[1:]})
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Wait()
	pipe := fmt.Errorf("%w: write |1: broken pipe", adapters.ErrClosed)
	tests := []struct {
		agent  string // as the agent names its process
		err    error  // its Prompt's error, as its code wraps it
		exiter bool   // its session tells its process's exit (adapters.Exiter)
	}{
		{"claude", adapters.CrashError(p, "claude", claude.ErrExited), true},
		{"claude", claude.ErrExited, true}, // refused before its exit was reaped
		{"claude", fmt.Errorf("claude: send prompt: %w", adapters.WriteLine(p, "claude", []byte("{}"))), true},
		{"claude", fmt.Errorf("claude: send prompt: %w", pipe), true},
		{"gemini", adapters.CrashError(p, "gemini", adapters.ErrClosed), true}, // acpclient, as every ACP agent
		{"gemini", fmt.Errorf("gemini: %w", adapters.ErrClosed), true},
		{"gemini", fmt.Errorf("gemini: %w", pipe), true},
		{"pi", adapters.CrashError(p, "pi", adapters.ErrClosed), false},
		{"codex app-server", &adapters.TurnError{Info: *mustCrash(t, p, "codex app-server")}, false}, // its turn's end, as Turn.Run returns it
		{"codex", adapters.ErrClosed, false},
		{"native", adapters.ErrClosed, false},
	}
	for _, tt := range tests {
		t.Run(tt.agent+"/"+tt.err.Error(), func(t *testing.T) {
			var sess adapters.Session = &fakeSession{err: tt.err}
			if tt.exiter {
				sess = exitingSession{&fakeSession{err: tt.err}, mustCrash(t, p, tt.agent)}
			}
			oc, err := RunTurn(context.Background(), TurnSpec{Agent: tt.agent, Session: sess, Prompt: adapters.TextPrompt("hi")})
			if errors.Is(err, adapters.ErrClosed) != errors.Is(tt.err, adapters.ErrClosed) || oc.Failure == nil || oc.Failure.Code != adapters.CodeCrash {
				t.Fatalf("error %v, failure %+v", err, oc.Failure)
			}
			msg := err.Error()
			if strings.Count(msg, strings.Fields(tt.agent)[0]) > 1 || strings.Contains(msg, "\n") {
				t.Fatalf("error %q names %s more than once", msg, tt.agent)
			}
			if (tt.exiter || errors.As(err, new(*adapters.TurnError))) &&
				(msg != tt.agent+" exited unexpectedly (exit code 3): boom" || oc.Failure.Detail != "first | boom") {
				t.Fatalf("error %q, detail %q", msg, oc.Failure.Detail)
			}
		})
	}
}

func mustCrash(t *testing.T, p *proc.Process, name string) *adapters.ErrorInfo {
	info, ok := adapters.CrashInfo(p, name)
	if !ok {
		t.Fatal("the process has not exited")
	}
	return info
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The digest sums per-request usage and lists the files the turn changed
// in the workspace, whoever wrote them (here the agent's process, as a
// shell command would).
func TestRunTurn_DigestSumsUsageAndReadsTheWorkspace(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	u := &adapters.Usage{InputTokens: 10, OutputTokens: 5, PerRequest: true}
	sess := &fakeSession{stop: adapters.StopEndTurn,
		events: []adapters.Event{{Type: adapters.EventUsage, Usage: u}, {Type: adapters.EventUsage, Usage: u}},
		write: func() {
			if err := os.WriteFile(filepath.Join(dir, "README"), []byte("more\n"), 0o644); err != nil {
				t.Error(err)
			}
		}}
	oc, err := RunTurn(context.Background(), TurnSpec{Agent: "fake", Session: sess, Prompt: adapters.TextPrompt("hi"), Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	d := oc.Digest
	if d.Usage == nil || d.Usage.InputTokens != 20 || d.Usage.OutputTokens != 10 || len(d.Files()) != 1 || d.Files()[0] != "README" {
		t.Fatalf("usage %+v files %+v", d.Usage, d.FilesChanged)
	}
}

// A turn continued in the same digest (NextTurn: hub run's repair turn)
// lists the files both turns changed: what the handover brief and the
// record keep of the run.
func TestRunTurn_NextTurnKeepsTheFirstTurnsFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	d := &Digest{}
	for i, name := range []string{"first.txt", "second.txt"} {
		if i > 0 {
			d.NextTurn()
		}
		sess := &fakeSession{stop: adapters.StopEndTurn, write: func() {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644); err != nil {
				t.Error(err)
			}
		}}
		if _, err := RunTurn(context.Background(), TurnSpec{Agent: "fake", Session: sess, Prompt: adapters.TextPrompt("hi"), Workspace: dir, Digest: d}); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.Files(); !slices.Equal(got, []string{"first.txt", "second.txt"}) {
		t.Fatalf("files %v, want both turns' files", got)
	}
}

// Outside a repository the digest lists the files the changing tool calls
// named, from the workspace as git would name them, whatever the OS.
func TestRunTurn_FilesOutsideARepositoryAreWorkspaceRelative(t *testing.T) {
	dir := t.TempDir()
	if _, err := repoRoot(context.Background(), dir); err == nil {
		t.Skip("the temporary directory is inside a git repository")
	}
	edit := func(path string) adapters.Event {
		return adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: path, Kind: adapters.KindEdit,
			Locations: []adapters.Location{{Path: path}}}}
	}
	outside := filepath.Join(filepath.Dir(dir), "elsewhere.txt")
	sess := &fakeSession{stop: adapters.StopEndTurn, events: []adapters.Event{
		edit(filepath.Join(dir, "docs", "a.md")), edit(outside)}}
	oc, err := RunTurn(context.Background(), TurnSpec{Agent: "fake", Session: sess, Prompt: adapters.TextPrompt("hi"), Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := oc.Digest.Files(); len(got) != 2 || got[0] != "docs/a.md" || got[1] != outside {
		t.Fatalf("files %q, want docs/a.md and the outside path as named", got)
	}
}
