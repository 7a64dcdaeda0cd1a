// Package compare runs one task on several agents (best of N), each
// candidate in its own git worktree made from HEAD plus the uncommitted
// changes, checks each with a command, picks a winner by a documented
// rule, and can apply it to the user's working tree (hub run --agents).
package compare

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/runner"
)

// Rule is how the winner is picked; the output repeats it.
const Rule = "the candidates whose check passed (all that completed, without --check), " +
	"ranked by the smaller diff (lines added + removed), then fewer denials, then the shorter time"

// Options configures Run.
type Options struct {
	Registry *adapters.Registry
	Agents   []string
	// N runs each agent this many times (default 1).
	N int
	// Check runs in each candidate's worktree after it ends; exit 0 passes.
	Check        string
	CheckTimeout time.Duration // default 10 minutes
	Apply, Keep  bool
	// Jobs bounds the candidates that run at once (default: the agents).
	Jobs    int
	Cwd     string
	Prompt  string
	Model   string
	Timeout time.Duration
	Approve conversation.Approve
	Rules   config.PermissionsConfig
	Format  runner.Format
	Stdout  io.Writer // default io.Discard
	Stderr  io.Writer // default io.Discard
	Log     zerolog.Logger
	Now     func() time.Time

	// Ask, when set, answers what each candidate's rules leave open
	// instead of Approve (hub acp: the editor, naming the candidate).
	Ask func(ctx context.Context, candidate string, q conversation.Question) conversation.Reply
	// Progress, when set, gets a copy of a candidate each time its Status
	// changes: pending, running, checking, then completed or failed. It is
	// called from the candidates' goroutines.
	Progress func(Candidate)
	// Confirm, when set and not Apply, asks whether to apply the winner
	// while the worktrees still exist. Declined, the winner's branch is
	// kept (its worktree removed) for the user to inspect; cancelled (ctx
	// ended), nothing is kept.
	Confirm func(ctx context.Context, s Summary) bool
	// StopAll ends the processes the candidates left (default
	// proc.StopAll, for a process that runs nothing else).
	StopAll func()
}

// Candidate is one agent's attempt.
type Candidate struct {
	Name       string          `json:"name"` // agent-i
	Agent      string          `json:"agent"`
	Status     string          `json:"status"` // completed | failed (pending | running | checking before)
	ExitCode   int             `json:"exitCode"`
	Error      string          `json:"error,omitempty"`
	Check      string          `json:"check"` // passed | failed | skipped
	CheckTail  string          `json:"checkTail,omitempty"`
	Files      int             `json:"filesChanged"`
	Added      int             `json:"added"`
	Removed    int             `json:"removed"`
	Usage      *adapters.Usage `json:"usage,omitempty"`
	DurationMs int64           `json:"durationMs"`
	Denials    int             `json:"denials"`
	Branch     string          `json:"branch"`
	Worktree   string          `json:"worktree"`

	base, head string
	ended      time.Time
	keepBranch bool // the user declined to apply it: its branch stays
}

// Candidate statuses before it ends (completed or failed).
const (
	StatusPending  = "pending"
	StatusRunning  = "running"
	StatusChecking = "checking"
)

// runID names a run: its start time, readable in branch names, and a
// random part, so runs started in the same second never share a branch.
func runID(start time.Time) string {
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	return start.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// Summary is the run's outcome.
type Summary struct {
	Candidates []*Candidate `json:"candidates"`
	Winner     string       `json:"winner,omitempty"`
	Rule       string       `json:"rule"`
	Applied    bool         `json:"applied"`
	ExitCode   int          `json:"exitCode"`
	Error      string       `json:"error,omitempty"`
}

// Run runs the candidates and prints the outcome.
func Run(ctx context.Context, o Options) Summary {
	if o.Now == nil {
		o.Now = time.Now
	}
	o.N = max(o.N, 1)
	if o.Jobs <= 0 {
		o.Jobs = len(o.Agents)
	}
	o.CheckTimeout = cmp.Or(o.CheckTimeout, 10*time.Minute)
	o.Stdout, o.Stderr = cmp.Or[io.Writer](o.Stdout, io.Discard), cmp.Or[io.Writer](o.Stderr, io.Discard)
	if o.StopAll == nil {
		o.StopAll = func() { proc.StopAll(2 * time.Second) }
	}
	// The candidates write at once: every line goes out whole.
	o.Stdout, o.Stderr = &lockedWriter{w: o.Stdout}, &lockedWriter{w: o.Stderr}
	s := run(ctx, o)
	s.Rule = Rule
	report(o, s)
	return s
}

func run(ctx context.Context, o Options) Summary {
	fail := func(code int, err error) Summary {
		return Summary{Candidates: []*Candidate{}, ExitCode: code, Error: err.Error()}
	}
	if len(o.Agents) == 0 || strings.TrimSpace(o.Prompt) == "" {
		return fail(runner.ExitUsage, errors.New("--agents and a prompt are needed"))
	}
	for _, a := range o.Agents {
		if _, err := o.Registry.Get(a); err != nil {
			return fail(runner.ExitUsage, err)
		}
	}
	r, err := openRepo(ctx, o.Cwd)
	if err != nil {
		return fail(runner.ExitUsage, fmt.Errorf("each candidate runs in a git worktree: %w", err))
	}
	id := runID(o.Now())
	root, err := os.MkdirTemp("", "hub-compare-"+id+"-")
	if err != nil {
		return fail(runner.ExitAgentError, err)
	}
	var cands []*Candidate
	for _, a := range o.Agents {
		for i := 1; i <= o.N; i++ {
			name := fmt.Sprintf("%s-%d", a, i)
			cands = append(cands, &Candidate{Name: name, Agent: a, Status: StatusPending, Check: "skipped",
				Branch: "hub/" + id + "/" + name, Worktree: filepath.Join(root, name)})
		}
	}
	defer cleanup(r, root, cands, o)
	for _, c := range cands {
		o.progress(c)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.Jobs)
	for _, c := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			o.candidate(ctx, r, c, o.Stdout)
		}()
	}
	wg.Wait()
	o.StopAll() // no candidate's process outlives the run
	s := Summary{Candidates: cands}
	if ctx.Err() != nil {
		s.ExitCode, s.Error = runner.ExitInterrupted, "interrupted"
		return s
	}
	w := winner(cands, o.Check != "")
	if w == nil {
		s.ExitCode, s.Error = runner.ExitAgentError, "no candidate passed"
		if o.Check == "" {
			s.Error = "no candidate completed"
		}
		return s
	}
	s.Winner = w.Name
	if !o.decideApply(ctx, s, w) {
		if ctx.Err() != nil {
			s.ExitCode, s.Error = runner.ExitInterrupted, "interrupted"
		}
		return s
	}
	if err := apply(ctx, r, w); err != nil {
		s.ExitCode, s.Error = runner.ExitAgentError, err.Error()
		w.keepBranch = true // the user asked for it: the change stays reachable
		return s
	}
	s.Applied = true
	return s
}

// decideApply says whether to apply the winner: Apply, else the user's
// answer to Confirm; a winner the user declined keeps its branch.
func (o Options) decideApply(ctx context.Context, s Summary, w *Candidate) bool {
	if o.Apply || o.Confirm == nil {
		return o.Apply
	}
	yes := o.Confirm(ctx, s)
	if ctx.Err() != nil {
		return false
	}
	w.keepBranch = !yes
	return yes
}

// progress reports c's new status.
func (o Options) progress(c *Candidate) {
	if o.Progress != nil {
		o.Progress(*c)
	}
}

// candidate runs one candidate in its worktree, then its check.
func (o Options) candidate(ctx context.Context, r *repo, c *Candidate, out io.Writer) {
	start := o.Now()
	defer func() {
		c.DurationMs, c.ended = o.Now().Sub(start).Milliseconds(), o.Now()
		o.progress(c)
	}()
	c.Status = StatusRunning
	o.progress(c)
	base, err := r.worktree(ctx, c.Worktree, c.Branch)
	if err != nil {
		c.Status, c.ExitCode, c.Error = "failed", runner.ExitAgentError, err.Error()
		return
	}
	c.base = base
	dir := filepath.Join(c.Worktree, r.rel)
	stdout, stderr := io.Discard, io.Discard
	if o.Format == runner.FormatJSONL {
		stdout = out
	}
	var ask conversation.Answerer
	if o.Ask != nil {
		ask = conversation.AnswerFunc(func(ctx context.Context, q conversation.Question) conversation.Reply {
			return o.Ask(ctx, c.Name, q)
		})
	}
	s := runner.Run(ctx, runner.Options{Registry: o.Registry, Agent: c.Agent, Model: o.Model, Cwd: dir, Timeout: o.Timeout,
		Approve: o.Approve, Ask: ask, Rules: o.Rules, Prompt: o.Prompt, Format: cmp.Or(o.Format, runner.FormatText), Candidate: c.Name,
		Stdout: stdout, Stderr: stderr, Log: o.Log, StopAll: func() {}, Now: o.Now})
	c.ExitCode, c.Error, c.Usage, c.Denials = s.ExitCode, s.Error, s.Usage, len(s.Denied)
	c.Status = "failed"
	if s.ExitCode == runner.ExitOK || s.ExitCode == runner.ExitDenied {
		c.Status = "completed"
	}
	if c.head, err = commitAll(context.WithoutCancel(ctx), c.Worktree, "hub: "+c.Name); err == nil {
		c.Files, c.Added, c.Removed, _ = numstat(context.WithoutCancel(ctx), c.Worktree, c.base, c.head)
	}
	if o.Check != "" && c.Status == "completed" && ctx.Err() == nil {
		c.Status = StatusChecking
		o.progress(c)
		c.Check, c.CheckTail = check(ctx, dir, o.Check, o.CheckTimeout)
		c.Status = "completed"
	}
	fmt.Fprintf(o.Stderr, "hub: %s %s (check %s)\n", c.Name, c.Status, c.Check)
}

// check runs the command in dir under a timeout: passed when it exits 0.
func check(ctx context.Context, dir, command string, timeout time.Duration) (string, string) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	spec := hooks.ShellSpec(command) // cmd.exe reads the line as written, not as Go quotes an argument
	spec.Dir, spec.StderrLimit = dir, 64<<10
	p, err := proc.Start(ctx, spec)
	if err != nil {
		return "failed", err.Error()
	}
	_ = p.Stdin.Close()
	data, _ := io.ReadAll(io.LimitReader(p.Stdout, 1<<20))
	werr := p.Wait()
	tail := lastLines(string(data)+p.StderrTail(10), 10)
	switch {
	case ctx.Err() != nil:
		return "failed", fmt.Sprintf("timed out after %s\n%s", timeout, tail)
	case werr != nil:
		return "failed", tail
	}
	return "passed", tail
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// winner ranks the eligible candidates by Rule.
func winner(cands []*Candidate, checked bool) *Candidate {
	var ok []*Candidate
	for _, c := range cands {
		if c.Status == "completed" && (!checked || c.Check == "passed") {
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	slices.SortStableFunc(ok, func(a, b *Candidate) int {
		return cmp.Or(cmp.Compare(a.Added+a.Removed, b.Added+b.Removed), cmp.Compare(a.Denials, b.Denials), cmp.Compare(a.DurationMs, b.DurationMs))
	})
	return ok[0]
}

// apply brings the winner's change into the user's working tree, as
// uncommitted changes, only if the tree is as the run found it.
func apply(ctx context.Context, r *repo, w *Candidate) error {
	if !r.unchanged(ctx) {
		return errors.New("not applied: your working tree changed during the run")
	}
	patch, err := git(ctx, w.Worktree, nil, "diff", "--binary", w.base, w.head)
	if err != nil {
		return fmt.Errorf("not applied: %w", err)
	}
	if len(patch) == 0 {
		return nil
	}
	if _, err := git(ctx, r.top, patch, "apply", "--binary", "--whitespace=nowarn"); err != nil {
		return fmt.Errorf("not applied: %w", err)
	}
	return nil
}

// cleanup removes the worktrees and branches, unless --keep; a winner
// the user declined to apply keeps its branch.
func cleanup(r *repo, root string, cands []*Candidate, o Options) {
	if o.Keep {
		return
	}
	ctx := context.Background()
	for _, c := range cands {
		branch := c.Branch
		if c.keepBranch {
			branch = ""
		}
		if err := r.remove(ctx, c.Worktree, branch); err != nil {
			o.Log.Debug().Err(err).Str("candidate", c.Name).Msg("cleanup")
		}
		c.Worktree = ""
		if !c.keepBranch {
			c.Branch = ""
		}
	}
	_ = os.RemoveAll(root)
}

// lockedWriter keeps the candidates' jsonl lines whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
