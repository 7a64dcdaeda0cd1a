package delegation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/safefile"
	"github.com/hubdev/hub/internal/transcript"
	"github.com/hubdev/hub/personas"
)

// restarted runs one delegate turn on agent a through a delegator of
// options o, closes it as a hub that exits does, and returns the session
// and a new delegator of the same options: the restarted process.
func restarted(t *testing.T, a *fakeAgent, o Options) (string, *Delegator) {
	t.Helper()
	first := New(o)
	r, err := first.Delegate(context.Background(), Request{Agent: a.name, Prompt: "read the parser"}, nil)
	first.Close()
	if err != nil || r.Error != "" || !strings.HasPrefix(r.Session, "d-") {
		t.Fatalf("the first turn: %+v, %v", r, err)
	}
	d := New(o)
	t.Cleanup(d.Close)
	return r.Session, d
}

// A delegate conversation goes on after hub restarted (hub mcp's server
// restarted, hub acp restarted and its session loaded): a continue on it
// resumes the agent's own session where the agent can, else starts it
// afresh briefed on the conversation (a failed resume too), under the
// same session, and later turns go to that session.
func TestContinue_GoesOnAfterHubRestarted(t *testing.T) {
	tests := []struct {
		name         string
		caps         adapters.Capabilities
		resumeFails  bool
		chain        []string // hub acp's root agent; none for hub mcp's own delegator
		wantResumeID string
	}{
		{name: "hub mcp: resumes natively", caps: adapters.Capabilities{Resume: true}, wantResumeID: "fake-session"},
		{name: "hub mcp: briefed ahead of the prompt"},
		{name: "hub mcp: briefed in its instructions", caps: adapters.Capabilities{Instructions: true}},
		{name: "hub mcp: the resume failed", caps: adapters.Capabilities{Resume: true}, resumeFails: true},
		{name: "hub acp: resumes natively", caps: adapters.Capabilities{Resume: true}, chain: []string{"lead"}, wantResumeID: "fake-session"},
		{name: "hub acp: briefed", chain: []string{"lead"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := answers("fake")
			a.caps, a.resumeFails = tt.caps, tt.resumeFails
			reg := adapters.NewRegistry()
			reg.Register(a)
			reg.Register(answers("lead"))
			ws, _ := workspace(t)
			id, d := restarted(t, a, Options{Registry: reg, Cwd: ws, Log: zerolog.Nop(), Chain: chainOf(reg, tt.chain), Records: t.TempDir()})
			ctx := context.Background()
			for _, prompt := range []string{"now fix it", "and test it"} {
				c, err := d.Delegate(ctx, Request{Session: id, Prompt: prompt}, nil)
				if err != nil || c.Error != "" || c.Session != id || c.Answer != "fake answered" {
					t.Fatalf("continue %q after the restart: %+v, %v; want the conversation to go on", prompt, c, err)
				}
			}
			if r, err := d.Delegate(ctx, Request{Agent: "fake", Prompt: "new work"}, nil); err != nil || r.Session == id {
				t.Errorf("a new delegation after the restart: %+v, %v; want a session of its own", r, err)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.starts != 3 || len(a.got) != 4 || a.got[2] != "and test it" {
				t.Fatalf("%d sessions started, prompts %q: want one more session taking both follow-ups, then the new delegation's", a.starts, a.got)
			}
			so, brief := a.opts[1], a.instructions[1]+strings.TrimSuffix(a.got[1], "now fix it")
			if so.ResumeID != tt.wantResumeID || so.Cwd != ws {
				t.Errorf("started resuming %q in %s; want %q in %s", so.ResumeID, so.Cwd, tt.wantResumeID, ws)
			}
			if briefed := strings.Contains(brief, "read the parser") && strings.Contains(brief, "fake answered"); briefed != (tt.wantResumeID == "") {
				t.Errorf("briefing %q: want one (with the first turn) only when the agent's own session was not resumed", brief)
			}
		})
	}
}

// A continue after hub restarted whose resumed agent session fails at its
// first prompt (claude's "No conversation found": the agent's stored
// session is gone) before any tool call or text runs again, once, on a
// fresh start briefed from hub's record, and says so; follow-ups go to that
// start. A turn that did something or answered, or a start that resumed
// nothing, is not run again.
func TestContinue_BriefedWhenTheResumedSessionIsLost(t *testing.T) {
	answer := []adapters.Event{{Type: adapters.EventText, Text: "fake answered"}, {Type: adapters.EventDone, StopReason: adapters.StopEndTurn}}
	lost := []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "No conversation found with session ID: fake-session",
		Code: adapters.CodeCrash, Fatal: true}}}
	lostQuietly := []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "No conversation found", Fatal: true}}}
	read := adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Name: "Read", Title: "Read a.go", Kind: adapters.KindRead,
		Status: adapters.StatusPending}}
	loggedOut := []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "not logged in", Code: adapters.CodeAuth, Fatal: true}}}
	tests := []struct {
		name   string
		caps   adapters.Capabilities
		script [][]adapters.Event // by prompt: the first turn before the restart, the continue's, a retry's
		retry  bool               // one more start, briefed, takes the continue
		fails  bool
	}{
		{name: "lost, the agent exited", caps: adapters.Capabilities{Resume: true}, script: [][]adapters.Event{answer, lost, answer}, retry: true},
		{name: "lost, an error", caps: adapters.Capabilities{Resume: true}, script: [][]adapters.Event{answer, lostQuietly, answer}, retry: true},
		{name: "lost, briefed in its instructions", caps: adapters.Capabilities{Resume: true, Instructions: true},
			script: [][]adapters.Event{answer, lost, answer}, retry: true},
		{name: "lost again: once only", caps: adapters.Capabilities{Resume: true}, script: [][]adapters.Event{answer, lost, lost}, retry: true, fails: true},
		{name: "a tool call started", caps: adapters.Capabilities{Resume: true}, script: [][]adapters.Event{answer, append([]adapters.Event{read}, lost...), answer},
			fails: true},
		{name: "it answered", caps: adapters.Capabilities{Resume: true}, script: [][]adapters.Event{answer, append([]adapters.Event{answer[0]}, lost...), answer},
			fails: true},
		{name: "not logged in", caps: adapters.Capabilities{Resume: true}, script: [][]adapters.Event{answer, loggedOut, answer}, fails: true},
		{name: "nothing resumed", script: [][]adapters.Event{answer, lost, answer}, fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &fakeAgent{name: "fake", caps: tt.caps, script: tt.script}
			reg := adapters.NewRegistry()
			reg.Register(a)
			ws, _ := workspace(t)
			id, d := restarted(t, a, Options{Registry: reg, Cwd: ws, Log: zerolog.Nop(), Records: t.TempDir()})
			var told []string
			c, err := d.Delegate(context.Background(), Request{Session: id, Prompt: "now fix it"}, func(m string) { told = append(told, m) })
			if failed := err != nil || c.Error != ""; failed != tt.fails {
				t.Fatalf("continue: %+v, %v; want failed %v", c, err, tt.fails)
			}
			if said := c.Briefed != "" && slices.ContainsFunc(told, func(m string) bool { return strings.Contains(m, c.Briefed) }); said != tt.retry {
				t.Errorf("result briefed %q, progress %q: want it told (to the result and the progress) only when a briefed start took the turn", c.Briefed, told)
			}
			a.mu.Lock()
			starts, got, opts, instructions := a.starts, slices.Clone(a.got), slices.Clone(a.opts), slices.Clone(a.instructions)
			a.mu.Unlock()
			want := 2
			if tt.retry {
				want = 3
			}
			if starts != want || len(got) != want {
				t.Fatalf("%d starts, prompts %q: want %d of each", starts, got, want)
			}
			if !tt.retry {
				return
			}
			if so, brief := opts[2], instructions[2]+got[2]; so.ResumeID != "" || !strings.Contains(brief, "read the parser") || !strings.HasSuffix(got[2], "now fix it") {
				t.Fatalf("the retry started resuming %q, briefing and prompt %q: want a fresh start briefed on the first turn", so.ResumeID, brief)
			}
			if tt.fails {
				return
			}
			if c, err := d.Delegate(context.Background(), Request{Session: id, Prompt: "and test it"}, nil); err != nil || c.Error != "" || c.Briefed != "" {
				t.Fatalf("the follow-up: %+v, %v", c, err)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.starts != 3 || a.got[3] != "and test it" {
				t.Errorf("%d starts, prompts %q: want the follow-up on the briefed start, not briefed again", a.starts, a.got)
			}
		})
	}
}

// The calling agent writes the session it continues, and a restarted hub
// knows it only from its record: an id that is not hub's, or a recorded
// session this delegator would not start as a new request (an agent of
// its chain or one its persona may not use, a directory outside its
// workspace), is refused in one line without starting an agent.
func TestContinue_RefusesARecordItMayNotGoOn(t *testing.T) {
	lead := &personas.Adapter{P: personas.Persona{Name: "lead", Description: "d", Delegates: []string{"other"}, Trusted: true}, Backend: answers("inner")}
	tests := []struct {
		name    string
		session func(id string) string
		opts    func(o *Options, ws string)
		unknown bool // ErrUnknownSession, not ErrRefused
	}{
		{name: "a path", session: func(string) string { return "../../etc/passwd" }},
		{name: "a path after hub's prefix", session: func(id string) string { return "d-x/../../" + id }},
		{name: "a separator", session: func(id string) string { return "d-" + string(filepath.Separator) + id }},
		{name: "an id hub never gives", session: func(string) string { return "fake-1" }},
		{name: "no record", session: func(string) string { return "d-0123456789abcdef" }, unknown: true},
		{name: "another workspace", opts: func(o *Options, _ string) { o.Cwd = o.Records }},
		{name: "a workspace inside its directory", opts: func(o *Options, ws string) {
			o.Cwd = filepath.Join(ws, "sub", "inner")
			if err := os.Mkdir(o.Cwd, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "its agent is in the chain", opts: func(o *Options, _ string) { o.Chain = chainOf(o.Registry, []string{"fake"}) }},
		{name: "a persona that may not use it", opts: func(o *Options, _ string) { o.Chain = []adapters.Adapter{lead} }},
		{name: "its directory became a link outside", opts: func(o *Options, ws string) {
			sub := filepath.Join(ws, "sub")
			if err := os.RemoveAll(sub); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(filepath.Dir(ws), "other"), sub); err != nil {
				t.Skip("no symbolic links here:", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := answers("fake")
			reg := adapters.NewRegistry()
			reg.Register(a)
			ws, _ := workspace(t)
			o := Options{Registry: reg, Cwd: ws, Log: zerolog.Nop(), Records: t.TempDir()}
			first := New(o)
			r, err := first.Delegate(context.Background(), Request{Agent: "fake", Prompt: "read the parser", Cwd: "sub"}, nil)
			first.Close()
			if err != nil {
				t.Fatal(err)
			}
			id := r.Session
			if tt.session != nil {
				id = tt.session(id)
			}
			if tt.opts != nil {
				tt.opts(&o, ws)
			}
			d := New(o)
			defer d.Close()
			c, err := d.Delegate(context.Background(), Request{Session: id, Prompt: "now fix it"}, nil)
			want := ErrRefused
			if tt.unknown {
				want = ErrUnknownSession
			}
			if !errors.Is(err, want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("continue %q: %+v, %v; want %v in one line", id, c, err, want)
			}
			if a.starts != 1 {
				t.Fatalf("%d sessions started: want none after the restart", a.starts)
			}
		})
	}
}

// Two follow-ups at once on a session read from its record start one
// agent session: the other is told the session is busy.
func TestContinue_RestartedSessionStartsOnce(t *testing.T) {
	a := answers("fake")
	reg := adapters.NewRegistry()
	reg.Register(a)
	ws, _ := workspace(t)
	id, d := restarted(t, a, Options{Registry: reg, Cwd: ws, Log: zerolog.Nop(), Records: t.TempDir()})
	starting, release := make(chan struct{}, 2), make(chan struct{})
	a.onStart = func() {
		starting <- struct{}{}
		<-release
	}
	follow := func(prompt string) <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := d.Delegate(context.Background(), Request{Session: id, Prompt: prompt}, nil)
			done <- err
		}()
		return done
	}
	first := follow("now fix it")
	<-starting
	second := follow("and test it")
	select {
	case err := <-second:
		if !errors.Is(err, ErrBusy) {
			t.Errorf("a second follow-up while the first starts the agent: %v, want ErrBusy", err)
		}
	case <-starting:
		t.Error("a second follow-up started a second agent session")
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the first follow-up: %v", err)
	}
}

// Two hub processes (hub mcp servers of two editors, say) continuing the
// same recorded session at once start one agent session: the other is
// told the session is busy, as a second follow-up in one process is.
func TestContinue_TwoProcessesStartOnce(t *testing.T) {
	a := answers("fake")
	reg := adapters.NewRegistry()
	reg.Register(a)
	ws, _ := workspace(t)
	o := Options{Registry: reg, Cwd: ws, Log: zerolog.Nop(), Records: t.TempDir()}
	id, d := restarted(t, a, o)
	other := New(o)
	t.Cleanup(other.Close)
	starting, release := make(chan struct{}, 2), make(chan struct{})
	a.onStart = func() {
		starting <- struct{}{}
		<-release
	}
	first := make(chan error, 1)
	go func() {
		_, err := d.Delegate(context.Background(), Request{Session: id, Prompt: "now fix it"}, nil)
		first <- err
	}()
	<-starting
	second := make(chan error, 1)
	go func() {
		_, err := other.Delegate(context.Background(), Request{Session: id, Prompt: "and test it"}, nil)
		second <- err
	}()
	select {
	case err := <-second:
		if !errors.Is(err, ErrBusy) {
			t.Errorf("the other process's follow-up while the first starts the agent: %v, want ErrBusy", err)
		}
	case <-starting:
		t.Error("the other process started a second agent session on the conversation")
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the first follow-up: %v", err)
	}
	if _, err := other.Delegate(context.Background(), Request{Session: id, Prompt: "and test it"}, nil); err != nil {
		t.Fatalf("the other process's follow-up once the first ended: %v; want the claim released", err)
	}
}

// Pruning a record takes its lock file with it: the records dir holds no
// lock of a record gone, however many sessions were continued.
func TestPrune_TakesTheLockFilesOfRecordsGone(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		keep  int
		files int
	}{
		{name: "under the bound", n: 2, keep: 3, files: 4},
		{name: "beyond it", n: 4, keep: 2, files: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i := range tt.n {
				id := fmt.Sprintf("d-%016x", i)
				if err := transcript.Replace(dir, id, []transcript.Record{{Type: transcript.TypeSession, Session: &transcript.Meta{ID: id, Agent: "fake"}}}); err != nil {
					t.Fatal(err)
				}
				at := time.Unix(int64(1000+i), 0)
				release, err := safefile.Hold(filepath.Join(dir, id+".lock"))
				if err != nil {
					t.Fatal(err)
				}
				release()
				if err := os.Chtimes(filepath.Join(dir, id+".jsonl"), at, at); err != nil {
					t.Fatal(err)
				}
			}
			prune(dir, tt.keep)
			if files, _ := os.ReadDir(dir); len(files) != tt.files {
				t.Fatalf("%d files after pruning %d records to %d: want %d (each record with its lock)", len(files), tt.n, tt.keep, tt.files)
			}
		})
	}
}
