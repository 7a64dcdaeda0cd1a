package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/bestof"
	"github.com/hubdev/hub/internal/config"
)

// /compare runs best of N (conversation/bestof, as `hub run --agents` does) in
// the session's cwd. Each candidate is a tool call of the turn; its permission
// requests reach the editor on that tool call, through the configured rules (no
// durable grants); the winner is applied only when the user allows it.

const (
	compareName  = "compare"
	compareUsage = "/compare AGENT... [--n N] [--check CMD] -- PROMPT"
)

// hubCommands are the slash commands hub itself answers, listed first so a skill
// or agent command of the same name does not hide them. /compare needs a git
// working tree (the cwd or a parent has .git).
func (ss *session) hubCommands() []adapters.Command {
	if _, err := os.Lstat(filepath.Join(config.ProjectRoot(ss.rec.Cwd), ".git")); err != nil || ss.srv.opts.Candidate == nil {
		return nil
	}
	return []adapters.Command{{Name: compareName,
		Description: "Best of N: run the prompt on several agents, each in its own git worktree, check them and apply the winner",
		InputHint:   `claude codex [--n 2] [--check "go test ./..."] -- prompt`}}
}

// compareLine returns the arguments of a /compare prompt.
func compareLine(prompt []schema.ContentBlock) (string, bool) {
	if len(prompt) == 0 || prompt[0].Type != schema.BlockText {
		return "", false
	}
	text := strings.TrimSpace(prompt[0].Text)
	rest, ok := strings.CutPrefix(text, "/"+compareName)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n') {
		return "", false
	}
	return rest, true
}

// parseCompare reads "AGENT... [--n N] [--check CMD] -- PROMPT" as the
// best of N run it asks for; agents may also be comma-separated, and CMD
// quoted.
func parseCompare(args string) (bestof.Options, error) {
	words, prompt, ok := splitBeforeDashes(args)
	r := bestof.Options{N: 1, Candidate: bestof.CandidateRun{Prompt: strings.TrimSpace(prompt)}}
	if !ok {
		return r, errors.New(`put "--" between the agents and the prompt`)
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, value, inline := strings.Cut(w, "=")
		if !strings.HasPrefix(w, "-") {
			for _, a := range strings.Split(w, ",") {
				if a = strings.TrimSpace(a); a != "" {
					r.Agents = append(r.Agents, a)
				}
			}
			continue
		}
		if !inline {
			if i+1 >= len(words) {
				return r, fmt.Errorf("%s needs a value", name)
			}
			i++
			value = words[i]
		}
		switch name {
		case "--n", "-n":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return r, fmt.Errorf("--n takes a positive number, not %q", value)
			}
			r.N = n
		case "--check":
			r.Check = value
		default:
			return r, fmt.Errorf("unknown option %s (--n N, --check CMD)", name)
		}
	}
	switch {
	case len(r.Agents) == 0:
		return r, errors.New("name at least one agent")
	case r.Candidate.Prompt == "":
		return r, errors.New(`the prompt after "--" is empty`)
	}
	return r, nil
}

// splitBeforeDashes splits s into shell-like words ('…' and "…" quote)
// up to a bare "--"; rest is the text after it, verbatim.
func splitBeforeDashes(s string) (words []string, rest string, found bool) {
	var w strings.Builder
	inWord, quoted := false, false
	var quote rune
	for i, r := range s + " " { // the space ends the last word
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord, quoted = r, true, true
		case strings.ContainsRune(" \t\n\r", r):
			if inWord && !quoted && w.String() == "--" {
				return words, s[i:], true
			}
			if inWord {
				words = append(words, w.String())
			}
			w.Reset()
			inWord, quoted = false, false
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	return words, "", false
}

// compareRun is one /compare turn.
type compareRun struct {
	ss    *session
	id    string
	mu    sync.Mutex
	cards map[string]bestof.Candidate // the last state shown, by candidate (each shown from its run)
	asked bool                        // the apply question was shown (on the turn's goroutine, as bestof.Run asks)
}

// runCompare runs the /compare command args as the turn and returns its
// stop reason; a usage error is said, and ends the turn.
func (ss *session) runCompare(ctx context.Context, args string) string {
	o, err := parseCompare(args)
	if err == nil && ss.srv.opts.Candidate == nil {
		err = errors.New("best of N is not available here")
	}
	if err != nil {
		ss.sayf("/compare: %v. Usage: %s\n", err, compareUsage)
		return schema.StopEndTurn
	}
	cr := &compareRun{ss: ss, id: newID(4), cards: map[string]bestof.Candidate{}}
	ss.mu.Lock()
	models := map[string]string{ss.rec.Agent: ss.rec.Model} // the session's model, for its agent's candidates
	ss.mu.Unlock()
	// The session's own additional directories stay out: a candidate works
	// in its worktree alone, and N of them would write the same files there.
	prompt := ss.toAdapterContent([]schema.ContentBlock{schema.TextBlock(o.Candidate.Prompt)})[0].Text // a skill's /command expanded
	o.Candidate = bestof.CandidateRun{Registry: ss.agents(), Cwd: ss.rec.Cwd, Prompt: prompt, MCPServers: ss.mcp,
		Approve: conversation.ApproveNone, Rules: ss.set.Permissions, Log: ss.srv.log, AuditDir: ss.srv.opts.TranscriptDir, Hooks: ss.set.Hooks}
	o.Run, o.Models, o.Ask, o.Progress, o.Confirm = ss.srv.opts.Candidate, models, cr.ask, cr.show, cr.confirm
	o.StopAll = func() {} // proc.StopAll would end every session's agent; each candidate closes its own
	s := bestof.Run(ctx, o)
	if s.ExitCode == conversation.ExitUsage { // the comparison never ran: Error says why
		ss.sayf("/compare: %s. Usage: %s\n", s.Error, compareUsage)
		return schema.StopEndTurn
	}
	var usage *adapters.Usage
	for _, c := range s.Candidates {
		cr.show(*c) // the branches left now
		usage = conversation.AddUsage(usage, c.Usage)
	}
	if ss.spent(usage); usage != nil && usage.CostUSD != nil { // no context figures: the candidates' are not the session's
		ss.send(schema.SessionUpdate{Usage: &schema.UsageUpdate{Cost: &schema.Cost{Amount: *ss.costWith(nil), Currency: "USD"}}})
	}
	if ctx.Err() != nil {
		cr.endApply(adapters.StatusFailed, "cancelled")
		return schema.StopCancelled
	}
	cr.report(s)
	return schema.StopEndTurn
}

func (cr *compareRun) cardID(name string) string { return "compare/" + cr.id + "/" + name }

// show reports a candidate's state on its tool call.
func (cr *compareRun) show(c bestof.Candidate) {
	cr.mu.Lock()
	cr.cards[c.Name] = c
	cr.mu.Unlock()
	cr.ss.emit(cr.ss.toolUpdate(cr.card(c)))
}

// card is a candidate's tool call: failed when its run or its check failed.
func (cr *compareRun) card(c bestof.Candidate) adapters.ToolCall {
	status, state := adapters.StatusFailed, c.Status
	switch {
	case c.Status == bestof.StatusPending:
		status = adapters.StatusPending
	case c.Status == bestof.StatusRunning || c.Status == bestof.StatusChecking:
		status = adapters.StatusInProgress
	case c.Status == "completed" && c.Check != "failed":
		status = adapters.StatusCompleted
	}
	if c.Status == "completed" && c.Check != "skipped" {
		state = "completed, check " + c.Check
	}
	return adapters.ToolCall{ID: cr.cardID(c.Name), Title: c.Name + ": " + state, Kind: adapters.KindExecute, Status: status,
		Content: []adapters.ToolContent{{Type: adapters.ToolContentText, Text: candidateText(c)}}}
}

func candidateText(c bestof.Candidate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %s · check %s", c.Status, c.Check)
	if c.Status == "completed" || c.Status == "failed" {
		b.WriteString(" · " + figures(c))
	}
	if c.Branch != "" {
		fmt.Fprintf(&b, " · branch %s", c.Branch)
	}
	if c.Error != "" {
		fmt.Fprintf(&b, "\n\n%s", c.Error)
	}
	if c.Check == "failed" && c.CheckTail != "" {
		fmt.Fprintf(&b, "\n\ncheck output:\n%s", c.CheckTail)
	}
	return b.String()
}

// figures are what the ranking weighs, and the files changed.
func figures(c bestof.Candidate) string {
	return fmt.Sprintf("%s changed · +%d/-%d lines · %.1fs · %s", plural(c.Files, "file"), c.Added, c.Removed,
		float64(c.DurationMs)/1000, plural(c.Denials, "denial"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ask puts what a candidate's rules leave open to the editor on the candidate's
// tool call; its "always" answers hold for that candidate only (its run's gate).
func (cr *compareRun) ask(ctx context.Context, candidate string, q conversation.Question) conversation.Reply {
	cr.mu.Lock()
	last := cr.cards[candidate]
	cr.mu.Unlock()
	t := q.Request.Tool
	t.ID, t.Title = cr.cardID(candidate), candidate+": "+conversation.ToolTitle(t)
	q.Request = adapters.NewPermissionRequest(t, q.Request.Options)
	r := cr.ss.askEditor(ctx, q, false)
	cr.ss.emit(cr.ss.toolUpdate(cr.card(last)))
	return r
}

// confirm names the winner and the ranking rule, then asks whether to
// apply it ("apply") or keep it on its branch ("keep"), on a tool call of
// its own.
func (cr *compareRun) confirm(ctx context.Context, s bestof.Summary) bool {
	w := winnerOf(s)
	cr.answerf("%s wins (check %s · %s).\n\nRanking: %s.\n", w.Name, w.Check, figures(*w), bestof.Rule)
	t := adapters.ToolCall{ID: cr.cardID("apply"), Kind: adapters.KindEdit, Status: adapters.StatusPending,
		Title: fmt.Sprintf("Apply %s's change to the working tree (%s, +%d/-%d lines)", w.Name, plural(w.Files, "file"), w.Added, w.Removed)}
	cr.asked = true
	cr.ss.emit(cr.ss.toolUpdate(t))
	id, _, err := cr.ss.editor.choose(ctx, schema.ToolCallUpdate{ToolCallID: t.ID, Title: t.Title, Kind: "edit"}, []schema.PermissionOption{
		{OptionID: "apply", Name: "Apply " + w.Branch, Kind: string(adapters.AllowOnce)},
		{OptionID: "keep", Name: "Keep it on its branch", Kind: string(adapters.RejectOnce)}})
	if err != nil {
		cr.ss.srv.log.Warn().Err(err).Msg("apply question failed; keeping the winner on its branch")
	}
	return id == "apply"
}

// endApply ends the apply tool call, if it was shown.
func (cr *compareRun) endApply(status adapters.ToolStatus, text string) {
	if cr.asked {
		cr.ss.emit(cr.ss.toolUpdate(adapters.ToolCall{ID: cr.cardID("apply"), Status: status,
			Content: []adapters.ToolContent{{Type: adapters.ToolContentText, Text: text}}}))
	}
}

// answerf says a line of the comparison's result: the turn's answer, which
// a later agent's briefing hands on (hub's notices are sayf's).
func (cr *compareRun) answerf(format string, a ...any) {
	cr.ss.emit(schema.SessionUpdate{AgentMessageChunk: &schema.ContentChunk{Content: schema.TextBlock(fmt.Sprintf(format, a...))}})
}

// report says how the run ended: applied, kept on its branch, or no winner.
func (cr *compareRun) report(s bestof.Summary) {
	w := winnerOf(s)
	switch {
	case w == nil:
		cr.answerf("No winner: %s. Nothing was applied; see each candidate above.\n\nRanking: %s.\n", s.Error, bestof.Rule)
	case s.Applied:
		cr.endApply(adapters.StatusCompleted, "applied")
		cr.answerf("\nApplied %s's change to your working tree, uncommitted: review it with `git diff`.\n", w.Name)
	case w.Branch != "":
		why := "Not applied"
		if s.Error != "" {
			why = strings.ToUpper(s.Error[:1]) + s.Error[1:]
		}
		cr.endApply(adapters.StatusFailed, why)
		cr.answerf("\n%s. %s's change is kept on branch %[3]s: see it with `git diff %[3]s~1 %[3]s`, apply it with `git diff %[3]s~1 %[3]s | git apply`, drop it with `git branch -D %[3]s`.\n",
			why, w.Name, w.Branch)
	default:
		cr.endApply(adapters.StatusFailed, s.Error)
		cr.answerf("\n%s.\n", s.Error)
	}
}

func winnerOf(s bestof.Summary) *bestof.Candidate {
	if i := slices.IndexFunc(s.Candidates, func(c *bestof.Candidate) bool { return c.Name == s.Winner }); s.Winner != "" && i >= 0 {
		return s.Candidates[i]
	}
	return nil
}
