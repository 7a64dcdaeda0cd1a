package runner

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/proc/proctest"
)

var update = flag.Bool("update", false, "rewrite golden files")

var fixedNow = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }

func runFake(t *testing.T, ctx context.Context, a *fakeAdapter, mod func(*Options)) (Summary, string, string) {
	t.Helper()
	reg := adapters.NewRegistry()
	reg.Register(a)
	var stdout, stderr bytes.Buffer
	o := Options{
		Registry: reg, Agent: a.name, Cwd: t.TempDir(), Prompt: "hi", Approve: conversation.ApproveReadOnly,
		Stdout: &stdout, Stderr: &stderr, Now: fixedNow, Grace: time.Minute, StopAll: func() {},
		SkillsUserDir: t.TempDir(),
	}
	if mod != nil {
		mod(&o)
	}
	s := Run(ctx, o)
	return s, stdout.String(), stderr.String()
}

func waitCancel(evs ...adapters.Event) fakeScript {
	return func(_ context.Context, cancelled <-chan struct{}, out chan<- adapters.Event) {
		for _, e := range evs {
			out <- e
		}
		<-cancelled
		out <- text(" (stopped)")
		out <- done(adapters.StopCancelled)
	}
}

// firesTimeout runs then after evs, firing the run's --timeout (timeout,
// distinct from the grace period) itself once
// it sent them: the turn times out after its prompt reached the agent,
// however slow the machine (a prompt cancelled before it is sent is not
// sent at all).
func firesTimeout(timeout time.Duration, then fakeScript, evs ...adapters.Event) (fakeScript, func(*Options)) {
	fire := make(chan time.Time)
	script := func(ctx context.Context, cancelled <-chan struct{}, out chan<- adapters.Event) {
		for _, e := range evs {
			out <- e
		}
		close(fire)
		then(ctx, cancelled, out)
	}
	return script, func(o *Options) {
		o.Timeout = timeout
		o.After = func(d time.Duration) <-chan time.Time {
			if d == o.Timeout {
				return fire
			}
			return time.After(d)
		}
	}
}

func TestRun_ExitCodes(t *testing.T) {
	graceful, gracefulTimeout := firesTimeout(time.Hour, waitCancel(), text("so far"))
	stuck, stuckTimeout := firesTimeout(time.Hour, func(context.Context, <-chan struct{}, chan<- adapters.Event) { <-neverClosed }, text("stuck"))
	cases := []struct {
		name     string
		a        *fakeAdapter
		mod      func(*Options)
		want     int
		wantOut  string // text stdout
		wantErr  string // text stderr fragment
		canceled bool
	}{
		{name: "completed", a: &fakeAdapter{script: steps(text("Hello "), text("world"), done(adapters.StopEndTurn))}, want: conversation.ExitOK, wantOut: "Hello world\n"},
		{name: "agent error keeps partial output and stderr tail", a: &fakeAdapter{script: steps(text("partial"),
			adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "claude exited (exit status 2)", Code: adapters.CodeCrash, Detail: "panic: boom\nat main.go:1", Fatal: true}},
			done(adapters.StopEndTurn))}, want: conversation.ExitAgentError, wantOut: "partial\n", wantErr: "  | panic: boom"},
		{name: "stream without done", a: &fakeAdapter{script: steps(text("cut"))}, want: conversation.ExitAgentError, wantOut: "cut\n", wantErr: "without finishing"},
		{name: "agent cancelled on its own", a: &fakeAdapter{script: steps(done(adapters.StopCancelled))}, want: conversation.ExitAgentError},
		{name: "start error", a: &fakeAdapter{startErr: errors.New("boom")}, want: conversation.ExitAgentError, wantErr: "fake could not start: boom"},
		{name: "unknown agent", a: &fakeAdapter{}, mod: func(o *Options) { o.Agent = "nope" }, want: conversation.ExitUsage, wantErr: "unknown agent"},
		{name: "bad format", a: &fakeAdapter{}, mod: func(o *Options) { o.Format = "xml" }, want: conversation.ExitUsage},
		{name: "bad approve", a: &fakeAdapter{}, mod: func(o *Options) { o.Approve = "some" }, want: conversation.ExitUsage},
		{name: "empty prompt", a: &fakeAdapter{}, mod: func(o *Options) { o.Prompt = "" }, want: conversation.ExitUsage},
		{name: "unknown skill", a: &fakeAdapter{}, mod: func(o *Options) { o.Skills = []string{"ghost"} }, want: conversation.ExitUsage, wantErr: "skill not found"},
		{name: "image unsupported", a: &fakeAdapter{}, mod: func(o *Options) { o.Images = []string{"x.png"} }, want: conversation.ExitUsage, wantErr: "does not accept images"},
		{name: "resume unsupported", a: &fakeAdapter{}, mod: func(o *Options) { o.ResumeID = "abc" }, want: conversation.ExitUsage},
		{name: "fork without resume", a: &fakeAdapter{caps: adapters.Capabilities{Resume: true, Fork: true}}, mod: func(o *Options) { o.Fork = true },
			want: conversation.ExitUsage, wantErr: "--fork needs --resume"},
		{name: "fork unsupported", a: &fakeAdapter{caps: adapters.Capabilities{Resume: true}}, mod: func(o *Options) { o.ResumeID, o.Fork = "abc", true },
			want: conversation.ExitUsage, wantErr: "cannot fork"},
		{name: "not installed (adapters)", a: &fakeAdapter{startErr: fmt.Errorf("claude: %w", adapters.ErrNotInstalled)}, want: conversation.ExitNotInstalled},
		{name: "bad working directory (start)", a: &fakeAdapter{startErr: adapters.StartError(fmt.Errorf("%w: /gone is not a directory", proc.ErrBadDir))},
			want: conversation.ExitUsage, wantErr: "/gone"},
		{name: "not installed (proc)", a: &fakeAdapter{startErr: fmt.Errorf("spawn: %w", proc.ErrNotFound)}, want: conversation.ExitNotInstalled},
		{name: "not authenticated (start)", a: &fakeAdapter{startErr: fmt.Errorf("x: %w", adapters.ErrNotAuthenticated)}, want: conversation.ExitNotAuthenticated},
		{name: "not authenticated (event)", a: &fakeAdapter{script: steps(
			adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "Invalid API key", Code: adapters.CodeAuth, Fatal: true}},
			done(adapters.StopEndTurn))}, want: conversation.ExitNotAuthenticated, wantErr: "Invalid API key"},
		{name: "timeout cancels gracefully", a: &fakeAdapter{script: graceful}, mod: gracefulTimeout,
			want: conversation.ExitTimeout, wantOut: "so far (stopped)\n", wantErr: "timed out", canceled: true},
		{name: "timeout with agent ignoring cancel", a: &fakeAdapter{script: stuck}, mod: func(o *Options) { stuckTimeout(o); o.Grace = 20 * time.Millisecond },
			want: conversation.ExitTimeout, wantOut: "stuck\n", wantErr: "did not stop", canceled: true},
		{name: "read-only denies edit", a: &fakeAdapter{script: steps(perm("t1", adapters.KindRead), perm("t2", adapters.KindEdit), text("done"), done(adapters.StopEndTurn))},
			want: conversation.ExitDenied, wantOut: "done\n", wantErr: "1 permission request(s) denied"},
		{name: "all allows edit", a: &fakeAdapter{script: steps(perm("t2", adapters.KindEdit), done(adapters.StopEndTurn))},
			mod: func(o *Options) { o.Approve = conversation.ApproveAll }, want: conversation.ExitOK},
		{name: "none denies read", a: &fakeAdapter{script: steps(perm("t1", adapters.KindRead), done(adapters.StopEndTurn))},
			mod: func(o *Options) { o.Approve = conversation.ApproveNone }, want: conversation.ExitDenied},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.a.name = "fake"
			s, out, errOut := runFake(t, context.Background(), c.a, c.mod)
			if s.ExitCode != c.want {
				t.Fatalf("exit = %d, want %d (error %q)\nstderr:\n%s", s.ExitCode, c.want, s.Error, errOut)
			}
			if c.wantOut != "" && out != c.wantOut {
				t.Errorf("stdout = %q, want %q", out, c.wantOut)
			}
			if !strings.Contains(errOut, c.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", c.wantErr, errOut)
			}
			if c.want != conversation.ExitOK && s.Error == "" {
				t.Error("non-zero exit without an error message")
			}
			c.a.mu.Lock()
			defer c.a.mu.Unlock()
			if c.canceled != c.a.canceled && c.want != conversation.ExitUsage && c.a.startErr == nil {
				t.Errorf("session cancelled = %v, want %v", c.a.canceled, c.canceled)
			}
			if c.a.startErr == nil && c.want != conversation.ExitUsage && !c.a.closed {
				t.Error("session not closed")
			}
		})
	}
}

func TestRun_InterruptWritesPartialOutput(t *testing.T) {
	for _, via := range []string{"context", "signal"} {
		t.Run(via, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sigs := make(chan os.Signal, 1)
			started := make(chan struct{})
			a := &fakeAdapter{name: "fake", script: func(ctx context.Context, cancelled <-chan struct{}, out chan<- adapters.Event) {
				out <- text("half")
				close(started)
				<-cancelled
				out <- done(adapters.StopCancelled)
			}}
			go func() {
				<-started
				if via == "context" {
					cancel()
				} else {
					sigs <- os.Interrupt
				}
			}()
			stopped := false
			s, out, _ := runFake(t, ctx, a, func(o *Options) {
				o.Signals = sigs
				o.StopAll = func() { stopped = true }
			})
			if s.ExitCode != conversation.ExitInterrupted || out != "half\n" || !a.closed || !stopped {
				t.Fatalf("exit %d out %q closed %v stopAll %v", s.ExitCode, out, a.closed, stopped)
			}
		})
	}
}

func TestRun_SecondSignalSkipsGrace(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	a := &fakeAdapter{name: "fake", script: func(ctx context.Context, _ <-chan struct{}, out chan<- adapters.Event) {
		out <- text("x")
		sigs <- os.Interrupt
		sigs <- os.Interrupt
		<-ctx.Done() // ignores Cancel; only Close (runCtx cancel) ends it
	}}
	// A run that waited out the grace would hang the test instead.
	s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.Signals = sigs; o.Grace = time.Hour })
	if s.ExitCode != conversation.ExitInterrupted {
		t.Fatalf("exit %d", s.ExitCode)
	}
}

func TestRun_SessionIDUsageAndResume(t *testing.T) {
	cost := 0.5
	a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Resume: true}, script: steps(
		adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: "sess-1"}},
		adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: 10, OutputTokens: 2}},
		adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{OutputTokens: 7, CostUSD: &cost}},
		done(adapters.StopEndTurn))}
	s, _, errOut := runFake(t, context.Background(), a, func(o *Options) { o.ResumeID = "sess-0"; o.Model = "m1" })
	if s.AgentSessionID != "sess-1" || s.Usage.InputTokens != 10 || s.Usage.OutputTokens != 7 || *s.Usage.CostUSD != 0.5 {
		t.Fatalf("summary %+v", s)
	}
	if a.opts.ResumeID != "sess-0" || a.opts.Model != "m1" || !filepath.IsAbs(a.opts.Cwd) || a.opts.CancelGrace <= 0 {
		t.Fatalf("opts %+v", a.opts)
	}
	if !strings.Contains(errOut, "--resume sess-1") {
		t.Fatalf("stderr lacks resume hint:\n%s", errOut)
	}
}

// The resume hint is printed only for agents that can resume: for the
// others the suggested command would fail with a usage error.
func TestRun_NoResumeHintWithoutResume(t *testing.T) {
	a := &fakeAdapter{name: "fake", script: steps(
		adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: "sess-1"}},
		done(adapters.StopEndTurn))}
	s, _, errOut := runFake(t, context.Background(), a, nil)
	if s.ExitCode != conversation.ExitOK {
		t.Fatalf("summary %+v", s)
	}
	if strings.Contains(errOut, "--resume") {
		t.Fatalf("resume hint for an agent that cannot resume:\n%s", errOut)
	}
}

func TestRun_Images(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Images: true}, script: steps(done(adapters.StopEndTurn))}
	s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.Images = []string{png} })
	if s.ExitCode != 0 || len(a.prompt) != 2 || a.prompt[1].Type != adapters.ContentImage || a.prompt[1].MimeType != "image/png" {
		t.Fatalf("exit %d prompt %+v", s.ExitCode, a.prompt)
	}
	s, _, _ = runFake(t, context.Background(), a, func(o *Options) { o.Images = []string{filepath.Join(dir, "missing.png")} })
	if s.ExitCode != conversation.ExitUsage {
		t.Fatalf("missing image exit %d", s.ExitCode)
	}
}

func TestRun_SkillDelivery(t *testing.T) {
	base, _ := filepath.Abs("../../testdata/skills")
	cwd, user := filepath.Join(base, "project"), filepath.Join(base, "user")
	// The prompt hooks judge the user's prompt, not the skill hub puts ahead of it.
	h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("exitifstdin:checklist.md:2:no files")}}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ mode string }{{"prompt"}, {"file"}, {"native"}, {""}}
	for _, c := range cases {
		t.Run("mode="+c.mode, func(t *testing.T) {
			var placed string
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Skills: c.mode}}
			a.script = func(context.Context, <-chan struct{}, chan<- adapters.Event) {}
			a.script = func(_ context.Context, _ <-chan struct{}, out chan<- adapters.Event) {
				a.mu.Lock()
				if len(a.opts.SkillDirs) == 1 {
					if _, err := os.Stat(filepath.Join(a.opts.SkillDirs[0], ".claude", "skills", "review", "SKILL.md")); err == nil {
						placed = a.opts.SkillDirs[0]
					}
				}
				a.mu.Unlock()
				out <- done(adapters.StopEndTurn)
			}
			s, _, _ := runFake(t, context.Background(), a, func(o *Options) {
				o.Cwd, o.SkillsUserDir, o.Skills, o.Prompt, o.Hooks = cwd, user, []string{"review"}, "check PR 7", h
			})
			if s.ExitCode != 0 {
				t.Fatalf("exit %d: %s", s.ExitCode, s.Error)
			}
			p := adapters.PromptText(a.prompt)
			switch c.mode {
			case "prompt", "":
				if !strings.Contains(p, `<skill name="review" folder="`+filepath.Join(user, "skills", "review")+`">`) || !strings.HasSuffix(p, "</skill>\n\ncheck PR 7") {
					t.Fatalf("prompt %q", p)
				}
			case "file":
				if !strings.Contains(a.opts.Instructions, "- tests added") || p != "check PR 7" {
					t.Fatalf("instructions %q prompt %q", a.opts.Instructions, p)
				}
			case "native":
				if placed == "" || p != "check PR 7" {
					t.Fatalf("not placed natively; prompt %q", p)
				}
				if _, err := os.Stat(placed); !os.IsNotExist(err) {
					t.Fatalf("native skills dir left behind: %v", err)
				}
			}
		})
	}
}

// A project skill hub does not trust is instructions only: placed where a
// native agent loads skills, its own SKILL.md would reach the agent, which
// honours its allowed-tools (claude: without asking hub's gate) and hooks.
// It goes in the prompt instead; trusted for the run, it is placed.
func TestRun_UntrustedProjectSkillNeverPlacedNatively(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base, _ := filepath.Abs("../../testdata/skills")
	for _, trust := range []bool{false, true} {
		t.Run(fmt.Sprintf("trust=%v", trust), func(t *testing.T) {
			var placed bool
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Skills: "native"}}
			a.script = func(_ context.Context, _ <-chan struct{}, out chan<- adapters.Event) {
				a.mu.Lock()
				placed = len(a.opts.SkillDirs) > 0
				a.mu.Unlock()
				out <- done(adapters.StopEndTurn)
			}
			s, _, _ := runFake(t, context.Background(), a, func(o *Options) {
				o.Cwd, o.SkillsUserDir, o.Skills, o.Prompt, o.TrustProject = filepath.Join(base, "project"), filepath.Join(base, "user"), []string{"pdf-tools"}, "read it", trust
			})
			if s.ExitCode != 0 {
				t.Fatalf("exit %d: %s", s.ExitCode, s.Error)
			}
			inPrompt := strings.Contains(adapters.PromptText(a.prompt), `<skill name="pdf-tools"`)
			if placed != trust || inPrompt == trust {
				t.Fatalf("placed %v, in the prompt %v; want placed only when trusted", placed, inPrompt)
			}
		})
	}
}

// neverClosed blocks a fake agent that ignores every cancel.
var neverClosed = make(chan struct{})

// Only --approve all leaves an agent's own sandbox in charge; under
// read-only and none the agent must ask before it writes or runs anything.
func TestRun_ApproveBoundsWhatTheAgentDoesUnasked(t *testing.T) {
	tests := []struct {
		approve conversation.Approve
		want    adapters.Access
	}{
		{conversation.ApproveAll, adapters.AccessAgentDefault},
		{conversation.ApproveReadOnly, adapters.AccessAskFirst},
		{conversation.ApproveNone, adapters.AccessAskFirst},
		{"", adapters.AccessAskFirst}, // the default is read-only
	}
	for _, tt := range tests {
		t.Run(string(tt.approve), func(t *testing.T) {
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true}}
			a.script = func(_ context.Context, _ <-chan struct{}, out chan<- adapters.Event) {
				out <- done(adapters.StopEndTurn)
			}
			s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.Approve, o.Prompt = tt.approve, "go" })
			if s.ExitCode != 0 {
				t.Fatalf("exit %d: %s", s.ExitCode, s.Error)
			}
			if a.opts.Access != tt.want {
				t.Fatalf("--approve %q gave access %q, want %q", tt.approve, a.opts.Access, tt.want)
			}
		})
	}
}

func TestRun_ForkStartsTheAgentOnACopy(t *testing.T) {
	a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Resume: true, Fork: true}, script: steps(text("ok"), done(adapters.StopEndTurn))}
	s, _, errOut := runFake(t, context.Background(), a, func(o *Options) { o.ResumeID, o.Fork = "sess-1", true })
	if s.ExitCode != conversation.ExitOK {
		t.Fatalf("exit %d: %s", s.ExitCode, errOut)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.opts.ResumeID != "sess-1" || !a.opts.Fork {
		t.Fatalf("started with %+v, want a fork of sess-1", a.opts)
	}
}
