// Package bestof runs one task on several agents (hub run --agents, hub
// acp's /compare), each in its own git worktree of HEAD plus the uncommitted
// changes, checks each with a command, picks a winner by Rule, and can apply
// it to the user's working tree.
package bestof

import (
	"cmp"
	"context"
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
)

// Rule is how the winner is picked; the output repeats it.
const Rule = "the candidates whose check passed (all that completed, without --check), " +
	"ranked by the smaller diff (lines added + removed), then fewer denials, then the shorter time"

type Options struct {
	// Candidate is every candidate's run, its Cwd the user's directory. Run
	// gets a copy with Name, Agent, Model, Cwd (in the worktree) and Ask set.
	Candidate CandidateRun
	Run       func(context.Context, CandidateRun) CandidateResult
	Agents    []string
	Models    map[string]string // by agent: a model name is one agent's
	N         int               // runs of each agent (default 1)
	// Check runs in each candidate's worktree after it ends; exit 0 passes.
	Check        string
	CheckTimeout time.Duration // default 10 minutes
	Apply, Keep  bool
	Jobs         int // candidates that run at once (default: the agents)
	// Ask, when set, answers what each candidate's rules leave open
	// instead of Approve.
	Ask func(ctx context.Context, candidate string, q conversation.Question) conversation.Reply
	// Progress gets a copy of a candidate each time its Status changes,
	// from the candidates' goroutines.
	Progress func(Candidate)
	// Confirm, when set and not Apply, asks whether to apply the winner
	// while the worktrees still exist. Declined, the winner's branch is
	// kept; cancelled, nothing is kept.
	Confirm func(ctx context.Context, s Summary) bool
	StopAll func() // ends the processes the candidates left (default proc.StopAll)
}

type CandidateRun struct {
	Registry                        *adapters.Registry
	Name, Agent, Model, Cwd, Prompt string
	Approve                         conversation.Approve
	Ask                             conversation.Answerer // when set, instead of Approve
	Rules                           config.PermissionsConfig
	Lines                           io.Writer // when set, gets the run's jsonl lines; else it prints nothing
	Log                             zerolog.Logger
	Now                             func() time.Time
	AuditDir                        string               // when set, gets its transcript
	Hooks                           *hooks.Runner        // the configured hooks, for an agent that does not run them itself
	MCPServers                      []adapters.MCPServer // the editor's, each to an agent that takes its type
}

type CandidateResult struct {
	ExitCode int // conversation.Exit*
	Error    string
	Usage    *adapters.Usage
	Denials  int
}

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

	head       string
	keepBranch bool // the user declined to apply it: its branch stays
}

// Candidate statuses before it ends (completed or failed).
const (
	StatusPending  = "pending"
	StatusRunning  = "running"
	StatusChecking = "checking"
)

type Summary struct {
	Candidates []*Candidate `json:"candidates"`
	Winner     string       `json:"winner,omitempty"`
	Rule       string       `json:"rule"`
	Applied    bool         `json:"applied"`
	ExitCode   int          `json:"exitCode"` // conversation.Exit*; ExitUsage: it never ran
	Error      string       `json:"error,omitempty"`
}

func Run(ctx context.Context, o Options) Summary {
	if o.Candidate.Now == nil {
		o.Candidate.Now = time.Now
	}
	if o.Progress == nil {
		o.Progress = func(Candidate) {}
	}
	o.N, o.Jobs = max(o.N, 1), cmp.Or(max(o.Jobs, 0), len(o.Agents))
	o.CheckTimeout = cmp.Or(o.CheckTimeout, 10*time.Minute)
	if o.StopAll == nil {
		o.StopAll = func() { proc.StopAll(2 * time.Second) }
	}
	fail := func(code int, err error) Summary {
		return Summary{Candidates: []*Candidate{}, Rule: Rule, ExitCode: code, Error: err.Error()}
	}
	if len(o.Agents) == 0 || strings.TrimSpace(o.Candidate.Prompt) == "" {
		return fail(conversation.ExitUsage, errors.New("--agents and a prompt are needed"))
	}
	for _, a := range o.Agents {
		if _, err := o.Candidate.Registry.Get(a); err != nil {
			return fail(conversation.ExitUsage, err)
		}
	}
	r, err := openRepo(ctx, o.Candidate.Cwd)
	if err != nil {
		return fail(conversation.ExitUsage, fmt.Errorf("each candidate runs in a git worktree: %w", err))
	}
	// The run's id, in its branches' names: its start, and the random part
	// of its directory, so runs started in the same second never share one.
	root, err := os.MkdirTemp("", "hub-compare-"+o.Candidate.Now().UTC().Format("20060102-150405")+"-")
	if err != nil {
		return fail(conversation.ExitAgentError, err)
	}
	id := strings.TrimPrefix(filepath.Base(root), "hub-compare-")
	var cands []*Candidate
	for _, a := range o.Agents {
		for i := 1; i <= o.N; i++ {
			name := fmt.Sprintf("%s-%d", a, i)
			cands = append(cands, &Candidate{Name: name, Agent: a, Status: StatusPending, Check: "skipped",
				Branch: "hub/" + id + "/" + name, Worktree: filepath.Join(root, name)})
			o.Progress(*cands[len(cands)-1])
		}
	}
	defer cleanup(r, root, cands, o)
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.Jobs)
	for _, c := range cands {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			o.attempt(ctx, r, c)
		})
	}
	wg.Wait()
	o.StopAll() // no candidate's process outlives the run
	s := Summary{Candidates: cands, Rule: Rule}
	w := winner(cands, o.Check != "")
	switch {
	case ctx.Err() != nil:
	case w == nil:
		s.ExitCode, s.Error = conversation.ExitAgentError, "no candidate passed"
		if o.Check == "" {
			s.Error = "no candidate completed"
		}
	default:
		s.Winner = w.Name
		if o.decideApply(ctx, s, w) {
			err := apply(ctx, r, w)
			if s.Applied = err == nil; err != nil {
				s.ExitCode, s.Error = conversation.ExitAgentError, err.Error()
				w.keepBranch = true // the user asked for it: the change stays reachable
			}
		}
	}
	if ctx.Err() != nil && !s.Applied {
		s.ExitCode, s.Error = conversation.ExitInterrupted, "interrupted"
	}
	return s
}

// decideApply: a winner the user declined keeps its branch.
func (o Options) decideApply(ctx context.Context, s Summary, w *Candidate) bool {
	if o.Apply || o.Confirm == nil {
		return o.Apply
	}
	yes := o.Confirm(ctx, s)
	w.keepBranch = !yes && ctx.Err() == nil
	return yes && ctx.Err() == nil
}

func (o Options) attempt(ctx context.Context, r *repo, c *Candidate) {
	start := o.Candidate.Now()
	defer func() {
		c.DurationMs = o.Candidate.Now().Sub(start).Milliseconds()
		o.Progress(*c)
	}()
	c.Status = StatusRunning
	o.Progress(*c)
	if err := r.worktree(ctx, c.Worktree, c.Branch); err != nil {
		c.Status, c.ExitCode, c.Error = "failed", conversation.ExitAgentError, err.Error()
		return
	}
	run := o.Candidate
	run.Name, run.Agent, run.Model, run.Cwd = c.Name, c.Agent, o.Models[c.Agent], filepath.Join(c.Worktree, r.rel)
	if o.Ask != nil {
		run.Ask = conversation.AnswerFunc(func(ctx context.Context, q conversation.Question) conversation.Reply {
			return o.Ask(ctx, c.Name, q)
		})
	}
	s := o.Run(ctx, run)
	c.ExitCode, c.Error, c.Usage, c.Denials = s.ExitCode, s.Error, s.Usage, s.Denials
	c.Status = "failed"
	if s.ExitCode == conversation.ExitOK || s.ExitCode == conversation.ExitDenied {
		c.Status = "completed"
	}
	var err error
	if c.head, err = commitAll(context.WithoutCancel(ctx), c.Worktree, "hub: "+c.Name); err == nil {
		c.Files, c.Added, c.Removed, _ = numstat(context.WithoutCancel(ctx), c.Worktree, r.base, c.head)
	}
	if o.Check != "" && c.Status == "completed" && ctx.Err() == nil {
		c.Status = StatusChecking
		o.Progress(*c)
		c.Check, c.CheckTail = check(ctx, run.Cwd, o.Check, o.CheckTimeout)
		c.Status = "completed"
	}
}

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
	out := proc.NewRing(64 << 10) // read to the end: a check that fills the pipe waits for it
	_, _ = io.Copy(out, p.Stdout)
	werr := p.Wait()
	lines := strings.Split(strings.TrimRight(out.String()+p.StderrTail(10), "\n"), "\n")
	tail := strings.Join(lines[max(0, len(lines)-10):], "\n")
	switch {
	case ctx.Err() != nil:
		return "failed", fmt.Sprintf("timed out after %s\n%s", timeout, tail)
	case werr != nil:
		return "failed", tail
	}
	return "passed", tail
}

func winner(cands []*Candidate, checked bool) *Candidate {
	ok := slices.DeleteFunc(slices.Clone(cands), func(c *Candidate) bool { return c.Status != "completed" || checked && c.Check != "passed" })
	if len(ok) == 0 {
		return nil
	}
	return slices.MinFunc(ok, func(a, b *Candidate) int { // the first of equals: the order they were named in
		return cmp.Or(cmp.Compare(a.Added+a.Removed, b.Added+b.Removed), cmp.Compare(a.Denials, b.Denials), cmp.Compare(a.DurationMs, b.DurationMs))
	})
}

// apply brings the winner's change into the user's working tree as
// uncommitted changes, only if the tree is as the run found it.
func apply(ctx context.Context, r *repo, w *Candidate) error {
	if t, err := r.tree(ctx); err != nil || t != r.state {
		return errors.New("not applied: your working tree changed during the run")
	}
	patch, err := git(ctx, w.Worktree, nil, "diff", "--binary", r.base, w.head)
	file := filepath.Join(filepath.Dir(w.Worktree), "winner.patch") // in the run's directory, removed with it
	if err == nil && len(patch) > 0 {
		if err = os.WriteFile(file, patch, 0o600); err == nil {
			_, err = git(ctx, r.top, nil, "apply", "--binary", "--whitespace=nowarn", file)
		}
	}
	if err != nil {
		return fmt.Errorf("not applied: %w", err)
	}
	return nil
}

func cleanup(r *repo, root string, cands []*Candidate, o Options) {
	// A start that outlasted its run's grace still holds a process in its
	// worktree: it ends now, and no start runs there until the worktree is gone.
	defer proc.StopUnder(root, 2*time.Second)()
	if o.Keep {
		return
	}
	ctx := context.Background()
	for _, c := range cands {
		var branch string
		if !c.keepBranch {
			branch, c.Branch = c.Branch, ""
		}
		if err := r.remove(ctx, c.Worktree, branch); err != nil {
			o.Candidate.Log.Debug().Err(err).Str("candidate", c.Name).Msg("cleanup")
		}
		c.Worktree = ""
	}
	_ = os.RemoveAll(root)
}
