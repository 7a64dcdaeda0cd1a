package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/conversation/bestof"
)

// BestOf is hub run --agents: o's candidates are each a Run (o.Run, else
// Candidate), their jsonl lines on stdout, a line on stderr as each ends,
// the outcome after.
func BestOf(ctx context.Context, o bestof.Options, format Format, stdout, stderr io.Writer) bestof.Summary {
	stdout, stderr = zerolog.SyncWriter(stdout), zerolog.SyncWriter(stderr) // the candidates write at once: each line whole
	if format == FormatJSONL {
		o.Candidate.Lines = stdout
	}
	if o.Run == nil {
		o.Run = Candidate
	}
	if o.Candidate.Now == nil {
		o.Candidate.Now = time.Now
	}
	o.Progress = func(c bestof.Candidate) {
		if c.Status == "completed" || c.Status == "failed" {
			fmt.Fprintf(stderr, "hub: %s %s (check %s)\n", c.Name, c.Status, c.Check)
		}
	}
	s := bestof.Run(ctx, o)
	reportBestOf(s, format, o.Keep, (&output{o: Options{Now: o.Candidate.Now}}).head("summary"), stdout, stderr)
	return s
}

// Candidate runs a best of N candidate as one hub run made of c alone
// (/compare).
func Candidate(ctx context.Context, c bestof.CandidateRun) bestof.CandidateResult {
	return Options{Registry: c.Registry, Approve: c.Approve, Rules: c.Rules, Log: c.Log,
		Now: c.Now, AuditDir: c.AuditDir, Hooks: c.Hooks}.RunCandidate(ctx, c)
}

// Usable reports the usage error each candidate made from o (hub run's
// options) would end with, so best of N refuses it before any starts: a
// bad --cwd, --allow-tool or --skill, a limit out of range.
func (o Options) Usable() error {
	o.Agent, o.ReadPrompt = cmp.Or(o.Agent, "candidate"), nil
	return o.defaults()
}

// RunCandidate runs best of N candidate c as the hub run o (every budget
// its own) with c's agent, worktree, prompt and the like. A candidate never
// falls back; durable grants name the user's project, not its worktree;
// the signals and the processes left are the best of N run's.
func (o Options) RunCandidate(ctx context.Context, c bestof.CandidateRun) bestof.CandidateResult {
	o.Agent, o.Model, o.Cwd, o.Prompt, o.ReadPrompt, o.Candidate, o.Ask = c.Agent, c.Model, c.Cwd, c.Prompt, nil, c.Name, c.Ask
	o.MCPServers = c.MCPServers
	o.Fallback, o.Grants, o.Signals, o.StopAll = nil, nil, nil, func() {}
	o.Format, o.Stdout, o.Stderr, o.StderrTTY = FormatText, io.Discard, io.Discard, false
	if c.Lines != nil {
		o.Format, o.Stdout = FormatJSONL, c.Lines
	}
	s := Run(ctx, o)
	return bestof.CandidateResult{ExitCode: s.ExitCode, Error: s.Error, Usage: s.Usage, Denials: len(s.Denied)}
}

// reportBestOf writes the outcome: in jsonl one summary line (after every
// candidate's own lines), in text a table on stdout and how to inspect or
// apply each candidate on stderr.
func reportBestOf(s bestof.Summary, format Format, keep bool, h head, stdout, stderr io.Writer) {
	if format == FormatJSONL {
		b, _ := json.Marshal(struct {
			head
			bestof.Summary
		}{h, s})
		_, _ = stdout.Write(append(b, '\n'))
		return
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CANDIDATE\tSTATUS\tCHECK\tFILES\t+/-\tTOKENS\tTIME\tDENIALS")
	for _, c := range s.Candidates {
		tokens := "-"
		if c.Usage != nil {
			tokens = fmt.Sprint(c.Usage.InputTokens + c.Usage.OutputTokens)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t+%d/-%d\t%s\t%.1fs\t%d\n", c.Name, c.Status, c.Check, c.Files, c.Added, c.Removed,
			tokens, float64(c.DurationMs)/1000, c.Denials)
	}
	_ = tw.Flush()
	if s.Winner != "" {
		fmt.Fprintf(stdout, "winner: %s (%s)\n", s.Winner, bestof.Rule)
	}
	for _, c := range s.Candidates {
		switch {
		case c.Worktree != "":
			fmt.Fprintf(stderr, "hub: %s: worktree %s, branch %s (git diff %s~1 %s)\n", c.Name, c.Worktree, c.Branch, c.Branch, c.Branch)
		case c.Branch != "":
			fmt.Fprintf(stderr, "hub: %s: kept on branch %s (git diff %s~1 %s)\n", c.Name, c.Branch, c.Branch, c.Branch)
		}
		if c.Check == "failed" && c.CheckTail != "" {
			fmt.Fprintf(stderr, "hub: %s check output:\n%s\n", c.Name, c.CheckTail)
		}
	}
	switch {
	case s.Applied:
		fmt.Fprintf(stderr, "hub: applied %s to your working tree (uncommitted)\n", s.Winner)
	case s.Winner != "" && !keep:
		fmt.Fprintf(stderr, "hub: rerun with --apply to bring %s's change into your tree, or --keep to inspect the branches\n", s.Winner)
	}
	if s.Error != "" {
		fmt.Fprintf(stderr, "hub: %s (exit %d)\n", s.Error, s.ExitCode)
	}
}
