package runner

import (
	"context"
	"fmt"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// Attempt is one agent a run tried, in order (Summary.Attempts).
type Attempt struct {
	Agent    string `json:"agent"`
	ExitCode int    `json:"exitCode"`
	Error    string `json:"error,omitempty"`
	// Fallback says why the next agent was tried after this one.
	Fallback string `json:"fallback,omitempty"`
}

// fallbackEvent is the jsonl line a fallback writes between the attempts.
type fallbackEvent struct {
	V      int    `json:"v"`
	Type   string `json:"type"`
	TS     string `json:"ts"`
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// runChain runs the agent and, when it could not do the work, each
// fallback agent in turn; the summary is the last attempt's, naming the
// agent that answered and every attempt.
func runChain(ctx context.Context, o Options, out *output) Summary {
	chain := append([]string{o.Agent}, o.Fallback...)
	var attempts []Attempt
	var s Summary
	var usage *adapters.Usage
	start := o.Now()
	before := conversation.TakeSnapshot(ctx, o.Cwd)
	for i, agent := range chain {
		oo := o
		oo.Agent = agent
		if i > 0 && loadTranscript(o.TranscriptDir, o.ResumeID) == nil {
			oo.ResumeID, oo.Fork = "", false // another agent cannot resume the first one's session
		}
		r := &run{o: oo, start: o.Now(), out: out}
		s = r.execute(ctx)
		usage = conversation.AddUsage(usage, s.Usage)
		reason := r.fallbackReason(s)
		attempts = append(attempts, Attempt{Agent: agent, ExitCode: s.ExitCode, Error: s.Error})
		if reason == "" || i == len(chain)-1 {
			break
		}
		attempts[i].Fallback = reason
		next := chain[i+1]
		out.fallback(agent, next, reason)
		if r.promptText != "" { // read once: the next agent gets the same prompt
			o.Prompt, o.ReadPrompt = r.promptText, nil
		}
	}
	s.Agent = attempts[len(attempts)-1].Agent
	s.Usage, s.DurationMs = usage, o.Now().Sub(start).Milliseconds()
	if usage != nil {
		s.Cost = usage.CostUSD
	}
	s.FilesChanged = before.Changes(context.WithoutCancel(ctx))
	if len(chain) > 1 {
		s.Attempts = attempts
	}
	return s
}

// fallbackReason says why the next agent should take over: this one could
// not do the work (not installed, not logged in, rate-limited past its
// retries, crashed) and never started a tool call, which may have had
// effects. "" means the run's outcome stands.
func (r *run) fallbackReason(s Summary) string {
	if len(r.digest.ToolCalls) > 0 {
		return ""
	}
	name := r.o.Agent
	switch s.ExitCode {
	case ExitNotInstalled:
		return name + " is not installed"
	case ExitNotAuthenticated:
		return name + " is not logged in"
	case ExitAgentError:
	default:
		return ""
	}
	for _, e := range []*adapters.ErrorInfo{r.failure, r.digest.Fatal} {
		switch {
		case e == nil:
		case e.Code == adapters.CodeRateLimit:
			return name + " is rate-limited"
		case e.Code == adapters.CodeCrash:
			return name + " crashed"
		}
	}
	if r.startErr {
		return name + " could not start"
	}
	return ""
}

// fallback tells, on stderr and as a jsonl event, that the next agent
// takes over.
func (w *output) fallback(from, to, reason string) {
	if w.o.Format == FormatJSONL {
		w.jsonl(fallbackEvent{V: EnvelopeVersion, TS: w.ts(), Type: "fallback", From: from, To: to, Reason: reason})
	}
	w.line(w.color("33", fmt.Sprintf("%s: %s; continuing with %s", w.name(), reason, to)))
}
