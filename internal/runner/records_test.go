package runner

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
	"github.com/hubdev/hub/internal/transcript"
)

// The native loop reports usage per model request: a turn of two requests
// reports their sum, in the summary and in turn_end.
func TestRun_UsageSumsPerRequestEvents(t *testing.T) {
	u := &mockllm.OpenAIUsage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "read_file", Args: `{"path":"a.txt"}`}}, Usage: u},
		mockllm.OpenAITurn{Text: "done", Usage: u})
	defer srv.Close()
	reg := adapters.NewRegistry()
	retries := 0
	reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true},
		openai.Options{MaxRetries: &retries}))
	var out bytes.Buffer
	s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: t.TempDir(), Prompt: "hi", Format: FormatJSONL,
		Stdout: &out, Timeout: 20 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
	if s.ExitCode != conversation.ExitOK {
		t.Fatalf("exit %d: %s", s.ExitCode, s.Error)
	}
	if s.Usage == nil || s.Usage.InputTokens != 20 || s.Usage.OutputTokens != 10 {
		t.Fatalf("usage %+v, want 20 in / 10 out", s.Usage)
	}
	if !bytes.Contains(out.Bytes(), []byte(`"type":"turn_end"`)) || !bytes.Contains(out.Bytes(), []byte(`"usage":{"inputTokens":20,"outputTokens":10`)) {
		t.Fatalf("turn_end lacks the summed usage:\n%s", out.String())
	}
}

// The summary's duration, usage and cost cover every attempt, the
// fallbacks' included; model is what the agent reported.
func TestRun_SummaryCoversEveryAttempt(t *testing.T) {
	var mu sync.Mutex
	now := fixedNow()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	tick := func(d time.Duration, evs ...adapters.Event) fakeScript {
		return func(ctx context.Context, c <-chan struct{}, out chan<- adapters.Event) {
			mu.Lock()
			now = now.Add(d)
			mu.Unlock()
			steps(evs...)(ctx, c, out)
		}
	}
	one := 0.5
	first := &fakeAdapter{name: "first", script: tick(3*time.Second,
		adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: 7, CostUSD: &one}},
		crash(adapters.CodeCrash), done(adapters.StopEndTurn))}
	second := &fakeAdapter{name: "second", script: tick(4*time.Second,
		adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{Model: "big-1"}},
		adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: 3, OutputTokens: 2, CostUSD: &one}},
		text("ok"), done(adapters.StopEndTurn))}
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(second)
	s := Run(context.Background(), Options{Registry: reg, Agent: "first", Fallback: []string{"second"}, Cwd: t.TempDir(), Prompt: "go",
		Model: "asked", Approve: conversation.ApproveAll, Now: clock, Grace: time.Minute, StopAll: func() {}, SkillsUserDir: t.TempDir()})
	if s.ExitCode != conversation.ExitOK || s.Agent != "second" {
		t.Fatalf("exit %d agent %s: %s", s.ExitCode, s.Agent, s.Error)
	}
	if s.DurationMs != 7000 {
		t.Errorf("durationMs %d, want 7000 (both attempts)", s.DurationMs)
	}
	if s.Usage == nil || s.Usage.InputTokens != 10 || s.Usage.OutputTokens != 2 || s.Cost == nil || *s.Cost != 1 {
		t.Errorf("usage %+v cost %v, want 10 in / 2 out, cost 1", s.Usage, s.Cost)
	}
	if s.Model != "big-1" {
		t.Errorf("model %q, want the reported big-1", s.Model)
	}
}

func TestRun_ModelFallsBackToTheConfiguredOne(t *testing.T) {
	s, _, _ := runFake(t, context.Background(), &fakeAdapter{name: "fake", script: steps(text("x"), done(adapters.StopEndTurn))},
		func(o *Options) { o.Model = "asked-model" })
	if s.Model != "asked-model" {
		t.Fatalf("model %q", s.Model)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// filesChanged lists what the run changed in the repository, whoever wrote
// it (here the agent's process, as a shell command would), and leaves out
// what was dirty before and stayed as it was.
func TestRun_FilesChangedByTheRun(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q")
	write("kept.txt", "a\nb\n")
	write("edited.txt", "a\nb\n")
	write("gone.txt", "a\nb\nc\n")
	write("predirty.txt", "a\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "init")
	write("predirty.txt", "a\nb\n")  // dirty before the run, untouched by it
	write("untracked.txt", "x\n")    // likewise
	write("edited.txt", "a\nB\nc\n") // the run's changes follow
	script := func(_ context.Context, _ <-chan struct{}, out chan<- adapters.Event) {
		write("edited.txt", "a\nB\nc\nd\n")
		write("new.txt", "1\n2\n3\n")
		_ = os.Remove(filepath.Join(dir, "gone.txt"))
		out <- text("done")
		out <- done(adapters.StopEndTurn)
	}
	s, _, _ := runFake(t, context.Background(), &fakeAdapter{name: "fake", script: script}, func(o *Options) { o.Cwd = dir })
	want := []conversation.FileChange{
		{Path: "edited.txt", Status: "modified", Added: 1},
		{Path: "gone.txt", Status: "deleted", Removed: 3},
		{Path: "new.txt", Status: "added", Added: 3},
	}
	if !reflect.DeepEqual(s.FilesChanged, want) {
		t.Fatalf("filesChanged %+v\nwant %+v", s.FilesChanged, want)
	}
}

// A run asks git about its workspace once, for the snapshot its digest
// takes, also when a fallback agent takes the turn over (a git that finds
// no repository is asked nothing more).
func TestRun_SnapshotsItsWorkspaceOnce(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		t.Run(map[bool]string{false: "one agent", true: "a fallback"}[fallback], func(t *testing.T) {
			bin, dir := t.TempDir(), t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			calls := filepath.Join(bin, "calls")
			proctest.Install(t, bin, "git", "stdin>>:"+calls, "exit:128")
			t.Setenv("PATH", bin)
			first := &fakeAdapter{name: "first", script: steps(text("x"), done(adapters.StopEndTurn))}
			if fallback {
				first.script = steps(crash(adapters.CodeRateLimit), done(adapters.StopEndTurn))
			}
			s, _, stderr := runFake(t, context.Background(), first, func(o *Options) {
				o.Registry.Register(&fakeAdapter{name: "second", script: steps(text("second answered"), done(adapters.StopEndTurn))})
				o.Cwd, o.Fallback = dir, []string{"second"}
			})
			got, _ := os.ReadFile(calls)
			if n := bytes.Count(got, []byte("\n")); s.ExitCode != conversation.ExitOK || len(s.Attempts) != map[bool]int{false: 1, true: 2}[fallback] || n != 1 {
				t.Fatalf("exit %d, %d attempts, git ran %d times, want once\nstderr:\n%s", s.ExitCode, len(s.Attempts), n, stderr)
			}
		})
	}
}

// Outside a repository a run lists the files its edit tools named, as
// hub acp and a delegate do; null when none.
func TestRun_FilesChangedOutsideARepository(t *testing.T) {
	edit := adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Title: "Edit parser.go", Kind: adapters.KindEdit,
		Locations: []adapters.Location{{Path: "/repo/parser.go"}}}}
	failed := adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: "t1", Status: adapters.StatusFailed,
		Content: []adapters.ToolContent{{Type: adapters.ToolContentText, Text: `Tool "write_file" not found`}}}}
	edit2 := adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t2", Title: "Edit parser.go", Kind: adapters.KindEdit,
		Locations: []adapters.Location{{Path: "/repo/parser.go"}}, Status: adapters.StatusCompleted}}
	for _, tt := range []struct {
		name   string
		script fakeScript
		want   string
	}{
		{"no edit", steps(text("x"), done(adapters.StopEndTurn)), `"filesChanged":null`},
		{"an edit", steps(edit, text("x"), done(adapters.StopEndTurn)), `"filesChanged":[{"path":"/repo/parser.go","status":"modified","added":0,"removed":0}]`},
		// an edit that failed (say the agent had no write tool) changed nothing
		{"a failed edit", steps(edit, failed, text("x"), done(adapters.StopEndTurn)), `"filesChanged":null`},
		{"a failed edit then one that worked", steps(edit, failed, edit2, text("x"), done(adapters.StopEndTurn)),
			`"filesChanged":[{"path":"/repo/parser.go","status":"modified","added":0,"removed":0}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, out, _ := runFake(t, context.Background(), &fakeAdapter{name: "fake", script: tt.script},
				func(o *Options) { o.Format, o.Approve = FormatJSONL, conversation.ApproveAll })
			if !strings.Contains(out, tt.want) {
				t.Fatalf("want %s in\n%s", tt.want, out)
			}
		})
	}
}

// A turn stopped by the budget --max-turns set exits 7, and so does one
// the agent's own limit stopped: an unfinished turn never exits 0.
func TestRun_MaxTurnsStopExitsBudget(t *testing.T) {
	tests := []struct {
		name     string
		maxTurns int
		want     int
	}{
		{"with --max-turns", 3, conversation.ExitBudget},
		{"config budget only", 0, conversation.ExitBudget}, // not finished either: never exit 0
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &fakeAdapter{name: "fake", script: steps(text("half done"), done(adapters.StopMaxTurnRequests))}
			s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.MaxTurns = tt.maxTurns })
			if s.ExitCode != tt.want || s.StopReason != adapters.StopMaxTurnRequests {
				t.Fatalf("exit %d stop %s (%s), want %d", s.ExitCode, s.StopReason, s.Error, tt.want)
			}
		})
	}
}

// A run's record is dated by the run's clock (Options.Now), as its summary
// is: a test or a replay that sets the clock sees its own dates.
func TestRun_RecordDatedByTheRunsClock(t *testing.T) {
	dir := t.TempDir()
	a := &fakeAdapter{name: "fake", script: steps(adapters.Event{Type: adapters.EventSessionInfo,
		Session: &adapters.SessionInfo{AgentSessionID: "sess-1"}}, text("ok"), done(adapters.StopEndTurn))}
	if s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.TranscriptDir = dir }); s.ExitCode != conversation.ExitOK {
		t.Fatalf("exit %d: %s", s.ExitCode, s.Error)
	}
	recs, err := transcript.Read(dir, "sess-1")
	if err != nil || len(recs) == 0 || recs[0].Session == nil || !recs[0].Session.Created.Equal(fixedNow()) {
		t.Fatalf("record %+v (%v): want it created at %v", recs, err, fixedNow())
	}
}
