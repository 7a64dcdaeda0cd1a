package compare

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/hubdev/hub/internal/runner"
)

// report writes the outcome: in jsonl one summary line (after every
// candidate's own lines), in text a table on stdout and how to inspect or
// apply each candidate on stderr.
func report(o Options, s Summary) {
	if o.Format == runner.FormatJSONL {
		b, _ := json.Marshal(struct {
			V    int    `json:"v"`
			Type string `json:"type"`
			Summary
		}{runner.EnvelopeVersion, "summary", s})
		_, _ = o.Stdout.Write(append(b, '\n'))
		return
	}
	tw := tabwriter.NewWriter(o.Stdout, 0, 4, 2, ' ', 0)
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
		fmt.Fprintf(o.Stdout, "winner: %s (%s)\n", s.Winner, Rule)
	}
	for _, c := range s.Candidates {
		switch {
		case c.Worktree != "":
			fmt.Fprintf(o.Stderr, "hub: %s: worktree %s, branch %s (git diff %s~1 %s)\n", c.Name, c.Worktree, c.Branch, c.Branch, c.Branch)
		case c.Branch != "":
			fmt.Fprintf(o.Stderr, "hub: %s: kept on branch %s (git diff %s~1 %s)\n", c.Name, c.Branch, c.Branch, c.Branch)
		}
		if c.Check == "failed" && c.CheckTail != "" {
			fmt.Fprintf(o.Stderr, "hub: %s check output:\n%s\n", c.Name, c.CheckTail)
		}
	}
	switch {
	case s.Applied:
		fmt.Fprintf(o.Stderr, "hub: applied %s to your working tree (uncommitted)\n", s.Winner)
	case s.Winner != "" && !o.Keep:
		fmt.Fprintf(o.Stderr, "hub: rerun with --apply to bring %s's change into your tree, or --keep to inspect the branches\n", s.Winner)
	}
	if s.Error != "" {
		fmt.Fprintf(o.Stderr, "hub: %s (exit %d)\n", s.Error, s.ExitCode)
	}
}
