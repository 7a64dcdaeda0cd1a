package runner

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
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/bestof"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/proc/proctest"
	"github.com/hubdev/hub/personas"
)

// gitRepo makes a repository with one commit and an uncommitted file.
func gitRepo(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("best of N needs git, which is not on PATH") // the Wine test root has none
	}
	dir := t.TempDir()
	run := func(args ...string) {
		if out, err := gitOut(dir, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", ".")
	run("commit", "-qm", "base")
	if err := os.WriteFile(filepath.Join(dir, "dirty.txt"), []byte("uncommitted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writer is a native agent on the mock that writes result.txt.
func writer(t *testing.T, reg *adapters.Registry, name, content string) {
	mock := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{Text: "Writing.", ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file",
			Args: `{"path":"result.txt","content":"` + content + `\n"}`}}},
		mockllm.OpenAITurn{Text: "Wrote " + content + "."},
	)
	t.Cleanup(mock.Close)
	reg.Register(openai.New(openai.Profile{Name: name, BaseURL: mock.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second}))
}

// gitOut runs git in dir as hub's best of N does, and returns its output.
func gitOut(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=hub", "GIT_AUTHOR_EMAIL=hub@localhost", "GIT_COMMITTER_NAME=hub", "GIT_COMMITTER_EMAIL=hub@localhost")
	return cmd.CombinedOutput()
}

// candidate is a best of N candidate's run of prompt in dir, every
// permission allowed.
func candidate(reg *adapters.Registry, dir, prompt string) bestof.CandidateRun {
	return bestof.CandidateRun{Registry: reg, Cwd: dir, Prompt: prompt, Approve: conversation.ApproveAll, Log: zerolog.Nop()}
}

func hubRefs(t *testing.T, dir string) (worktrees, branches string) {
	w, _ := gitOut(dir, "worktree", "list")
	b, _ := gitOut(dir, "branch", "--list", "hub/*")
	return strings.TrimSpace(string(w)), strings.TrimSpace(string(b))
}

func TestBestOf_CheckPicksTheWinnerAndApplyBringsItIn(t *testing.T) {
	for _, format := range []Format{FormatText, FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			dir := gitRepo(t)
			reg := adapters.NewRegistry()
			writer(t, reg, "bad", "fail")
			writer(t, reg, "good", "pass")
			var stdout, stderr bytes.Buffer
			s := BestOf(context.Background(), bestof.Options{Candidate: candidate(reg, dir, "write result.txt"), Agents: []string{"bad", "good"},
				Check: proctest.ShellCommand("has:result.txt:pass", "exists:dirty.txt"), Apply: true}, format, &stdout, &stderr)
			if s.ExitCode != 0 || s.Winner != "good-1" || !s.Applied {
				t.Fatalf("exit %d winner %q applied %v error %q\nstderr:\n%s", s.ExitCode, s.Winner, s.Applied, s.Error, stderr.String())
			}
			byName := map[string]*bestof.Candidate{}
			for _, c := range s.Candidates {
				byName[c.Name] = c
			}
			if b, g := byName["bad-1"], byName["good-1"]; b.Check != "failed" || g.Check != "passed" || g.Files != 1 || g.Added != 1 {
				t.Fatalf("candidates %+v %+v", b, g)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "result.txt")); string(got) != "pass\n" {
				t.Fatalf("applied result.txt = %q", got)
			}
			if w, b := hubRefs(t, dir); strings.Count(w, "\n") != 0 || b != "" {
				t.Fatalf("left behind: worktrees\n%s\nbranches %q", w, b)
			}
			for _, line := range []string{"hub: bad-1 completed (check failed)\n", "hub: good-1 completed (check passed)\n"} {
				if !strings.Contains(stderr.String(), line) {
					t.Errorf("stderr lacks %q:\n%s", line, stderr.String())
				}
			}
			if format == FormatJSONL {
				checkJSONL(t, stdout.String())
			} else if !strings.Contains(stdout.String(), "winner: good-1") {
				t.Fatalf("text output:\n%s", stdout.String())
			}
		})
	}
}

func checkJSONL(t *testing.T, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines[:len(lines)-1] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["candidate"] == nil {
			t.Fatalf("a candidate's line without its candidate: %q", l)
		}
	}
	var last map[string]any
	_ = json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if last["type"] != "summary" || last["winner"] != "good-1" || len(last["candidates"].([]any)) != 2 || last["ts"] == nil {
		t.Fatalf("summary line %v", last)
	}
}

// A persona is a candidate like any agent (hub run --agents reviewer,good):
// it runs with its prompt and only its tools, even under --approve all,
// while the plain agent beside it writes.
func TestBestOf_PersonaCandidateRunsAsThePersona(t *testing.T) {
	dir := gitRepo(t)
	reg := adapters.NewRegistry()
	writer(t, reg, "good", "pass")
	mock := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"result.txt","content":"x"}`}}},
		mockllm.OpenAITurn{Text: "Reviewed."})
	defer mock.Close()
	p, err := personas.Parse("reviewer.md", []byte("---\nname: reviewer\ndescription: Reviews.\ntools: Read, Grep\n---\nYou are the reviewer.\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Trusted = true
	reg.Register(&personas.Adapter{P: p, Backend: openai.New(openai.Profile{Name: "native", BaseURL: mock.URL, Model: "mock-model", Local: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second})})
	var stdout, stderr bytes.Buffer
	s := BestOf(context.Background(), bestof.Options{Candidate: candidate(reg, dir, "write result.txt"), Agents: []string{"reviewer", "good"}},
		FormatText, &stdout, &stderr)
	byName := map[string]*bestof.Candidate{}
	for _, c := range s.Candidates {
		byName[c.Name] = c
	}
	r, g := byName["reviewer-1"], byName["good-1"]
	if r == nil || g == nil || r.Files != 0 || r.Denials != 1 || g.Files != 1 {
		t.Fatalf("candidates %+v %+v\nstderr:\n%s", r, g, stderr.String())
	}
	reqs := mock.Requests()
	if len(reqs) == 0 || !strings.Contains(mockllm.MessageText(reqs[0].Messages[0]), "You are the reviewer.") {
		t.Fatalf("the reviewer's model was not given its prompt (%d requests)", len(reqs))
	}
}

func TestBestOf_NoPassNoApplyKeepAndUsage(t *testing.T) {
	dir := gitRepo(t)
	reg := adapters.NewRegistry()
	writer(t, reg, "bad", "fail")
	var stdout, stderr bytes.Buffer
	o := bestof.Options{Candidate: candidate(reg, dir, "write result.txt"), Agents: []string{"bad"}, Check: proctest.ShellCommand("exit:1"),
		Apply: true, Keep: true}
	s := BestOf(context.Background(), o, FormatText, &stdout, &stderr)
	if s.ExitCode != conversation.ExitAgentError || s.Winner != "" || s.Applied {
		t.Fatalf("exit %d winner %q applied %v", s.ExitCode, s.Winner, s.Applied)
	}
	if _, err := os.Stat(filepath.Join(dir, "result.txt")); err == nil {
		t.Fatal("a failing candidate was applied")
	}
	if _, b := hubRefs(t, dir); !strings.Contains(b, "hub/") || s.Candidates[0].Worktree == "" {
		t.Fatalf("--keep kept no branch (%q) or worktree", b)
	}
	_ = os.RemoveAll(s.Candidates[0].Worktree)
	o.Candidate.Cwd = t.TempDir() // not a repository
	if s := BestOf(context.Background(), o, FormatText, &stdout, &stderr); s.ExitCode != conversation.ExitUsage {
		t.Fatalf("outside a repository: exit %d", s.ExitCode)
	}
}

func TestBestOf_InterruptLeavesNoWorktree(t *testing.T) {
	dir := gitRepo(t)
	reg := adapters.NewRegistry()
	mock := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Hang: true}, mockllm.OpenAITurn{Hang: true}, mockllm.OpenAITurn{Hang: true})
	defer mock.Close()
	reg.Register(openai.New(openai.Profile{Name: "slow", BaseURL: mock.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: time.Minute}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // cancel once all three candidates wait on the model
		for len(mock.Requests()) < 3 {
			select {
			case <-time.After(10 * time.Millisecond):
			case <-ctx.Done():
				return
			}
		}
		cancel()
	}()
	var stdout, stderr bytes.Buffer
	s := BestOf(ctx, bestof.Options{Candidate: candidate(reg, dir, "wait"), Agents: []string{"slow"}, N: 3, Jobs: 3}, FormatText, &stdout, &stderr)
	if s.ExitCode != conversation.ExitInterrupted || len(s.Candidates) != 3 {
		t.Fatalf("exit %d, %d candidates", s.ExitCode, len(s.Candidates))
	}
	if w, b := hubRefs(t, dir); strings.Count(w, "\n") != 0 || b != "" {
		t.Fatalf("left behind: worktrees\n%s\nbranches %q", w, b)
	}
}

// Confirm decides instead of --apply: allowed, the winner is applied and
// nothing is left; declined, the tree is untouched and only the winner's
// branch stays. Progress reports each candidate's way to its end.
func TestBestOf_ConfirmAppliesOrKeepsTheWinnersBranch(t *testing.T) {
	for _, yes := range []bool{true, false} {
		t.Run(fmt.Sprint(yes), func(t *testing.T) {
			dir := gitRepo(t)
			reg := adapters.NewRegistry()
			writer(t, reg, "bad", "fail")
			writer(t, reg, "good", "pass")
			var mu sync.Mutex
			seen := map[string][]string{}
			var asked []string
			s := bestof.Run(context.Background(), bestof.Options{Candidate: candidate(reg, dir, "write result.txt"), Run: Candidate,
				Agents: []string{"bad", "good"}, Check: proctest.ShellCommand("has:result.txt:pass"),
				Progress: func(c bestof.Candidate) {
					mu.Lock()
					defer mu.Unlock()
					if l := seen[c.Name]; len(l) == 0 || l[len(l)-1] != c.Status {
						seen[c.Name] = append(l, c.Status)
					}
				},
				Confirm: func(_ context.Context, s bestof.Summary) bool { asked = append(asked, s.Winner); return yes }})
			if s.Winner != "good-1" || s.Applied != yes || len(asked) != 1 || asked[0] != "good-1" {
				t.Fatalf("winner %q applied %v asked %v error %q", s.Winner, s.Applied, asked, s.Error)
			}
			for _, name := range []string{"bad-1", "good-1"} { // both runs complete; bad's check fails
				if got := strings.Join(seen[name], " "); got != "pending running checking completed" {
					t.Errorf("%s went %q", name, got)
				}
			}
			_, err := os.Stat(filepath.Join(dir, "result.txt"))
			if (err == nil) != yes {
				t.Fatalf("result.txt in the tree: %v, want %v", err == nil, yes)
			}
			w, b := hubRefs(t, dir)
			wantBranch := ""
			if !yes {
				wantBranch = s.Candidates[1].Branch
				if wantBranch == "" || s.Candidates[0].Branch != "" {
					t.Fatalf("declined: branches %q %q, want only the winner's", s.Candidates[0].Branch, wantBranch)
				}
				if out, _ := gitOut(dir, "diff", wantBranch+"~1", wantBranch); !strings.Contains(string(out), "+pass") {
					t.Fatalf("the kept branch lacks the change:\n%s", out)
				}
			}
			if strings.Count(w, "\n") != 0 || strings.TrimPrefix(strings.TrimSpace(b), "* ") != wantBranch {
				t.Fatalf("left behind: worktrees\n%s\nbranches %q, want %q", w, b, wantBranch)
			}
		})
	}
}

// Two runs started in the same second in one repository get branches of
// their own: the second does not fail on the first's kept branch.
func TestBestOf_RunsInTheSameSecondDoNotCollide(t *testing.T) {
	dir := gitRepo(t)
	mock := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"result.txt","content":"x\n"}`}}},
		mockllm.OpenAITurn{Text: "Wrote."})
	mock.SetLoop(true)
	defer mock.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "w", BaseURL: mock.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second}))
	now := func() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }
	var branches []string
	for range 2 {
		c := candidate(reg, dir, "write")
		c.Now = now
		s := bestof.Run(context.Background(), bestof.Options{Candidate: c, Run: Candidate, Agents: []string{"w"}, Keep: true})
		if s.ExitCode != 0 || s.Candidates[0].Status != "completed" {
			t.Fatalf("exit %d, candidate %+v", s.ExitCode, s.Candidates[0])
		}
		branches = append(branches, s.Candidates[0].Branch)
		_ = os.RemoveAll(s.Candidates[0].Worktree)
	}
	if branches[0] == branches[1] {
		t.Fatalf("both runs used branch %q", branches[0])
	}
}

// lateStart is an agent whose start outlasts any grace: it spawns its
// process (a witness, in the session's directory), hands it to the test
// and then waits for the test's release, whatever its context says.
type lateStart struct {
	report  string
	spawned chan *proc.Process
	release chan struct{}
}

func (a *lateStart) Name() string                        { return "late" }
func (a *lateStart) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (a *lateStart) Start(ctx context.Context, so adapters.SessionOptions) (adapters.Session, error) {
	argv := proctest.HelperCommand("witness", a.report)
	p, err := proc.Start(context.WithoutCancel(ctx), proc.Spec{Path: argv[0], Args: argv[1:], Dir: so.Cwd})
	if err != nil {
		return nil, err
	}
	if _, err := bufio.NewReader(p.Stdout).ReadString('\n'); err != nil { // its stop signals are caught
		return nil, err
	}
	a.spawned <- p
	<-a.release
	_ = p.Stop()
	return nil, errors.New("late: gave up")
}

// A candidate whose agent's start outlasts the run's grace (the run ended
// while the start still held a process in the worktree) has that process
// stopped and reaped before its worktree is removed, in /compare (no
// StopAll: other sessions' agents run on) as in hub run --agents.
func TestBestOf_ALateStartEndsBeforeItsWorktree(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stopAll func()
	}{{"/compare", func() {}}, {"hub run --agents", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			a := &lateStart{report: filepath.Join(t.TempDir(), "report"), spawned: make(chan *proc.Process, 1), release: make(chan struct{})}
			defer close(a.release)
			reg := adapters.NewRegistry()
			reg.Register(a)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			spawned := make(chan *proc.Process, 1)
			go func() { // the run is interrupted while the start holds its process
				p := <-a.spawned
				spawned <- p
				cancel()
			}()
			run := func(ctx context.Context, c bestof.CandidateRun) bestof.CandidateResult {
				return Options{Registry: c.Registry, Approve: c.Approve, Log: c.Log, Now: c.Now, Grace: time.Millisecond}.RunCandidate(ctx, c)
			}
			bestof.Run(ctx, bestof.Options{Candidate: candidate(reg, gitRepo(t), "go"), Run: run, Agents: []string{"late"}, StopAll: tc.stopAll})
			p := <-spawned
			if !p.Exited() {
				_ = p.StopWithin(10 * time.Millisecond)
				t.Fatal("the late start's process still runs after its worktree was removed")
			}
			if b, _ := os.ReadFile(a.report); string(b) != "true" {
				t.Fatalf("its worktree was there when it was stopped: %q, want true", b)
			}
		})
	}
}
