package runner

import (
	"cmp"
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
	// Detail is the attempt's failure in more lines (a crash's stderr).
	Detail string `json:"detail,omitempty"`
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
	var r *run
	start := o.Now()
	before := conversation.TakeSnapshot(ctx, o.Cwd)
	for i, agent := range chain {
		oo := o
		oo.Agent = agent
		if i > 0 && loadTranscript(o.TranscriptDir, o.ResumeID) == nil {
			oo.ResumeID, oo.Fork = "", false // another agent cannot resume the first one's session
		}
		r = &run{o: oo, start: o.Now(), out: out, fallbackNext: i < len(chain)-1}
		s = r.execute(ctx)
		usage = conversation.AddUsage(usage, s.Usage)
		reason := conversation.FallbackReason(agent, r.failureClass(s), len(r.digest.ToolCalls) > 0)
		attempts = append(attempts, Attempt{Agent: agent, ExitCode: s.ExitCode, Error: s.Error, Detail: s.Detail})
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
	// Outside a repository, the files the tool calls named, as the other
	// front ends list them: only the last attempt made any (one that did
	// hands no turn over).
	if s.FilesChanged = before.Changes(context.WithoutCancel(ctx)); s.FilesChanged == nil {
		s.FilesChanged = r.digest.FilesChanged
	}
	if len(chain) > 1 {
		s.Attempts = attempts
	}
	return s
}

// failureClass is how the attempt failed, for conversation's fallback
// rule; none when its outcome stands (done, interrupted, timed out,
// refused, a usage error).
func (r *run) failureClass(s Summary) conversation.Class {
	switch s.ExitCode {
	case conversation.ExitNotInstalled:
		return conversation.ClassNotInstalled
	case conversation.ExitNotAuthenticated:
		return conversation.ClassAuth
	case conversation.ExitAgentError:
		return cmp.Or(conversation.Classify(r.failure), conversation.Classify(r.digest.Fatal), conversation.ClassifyStart(r.startErr))
	}
	return conversation.ClassNone
}

// fallback tells, on stderr and as a jsonl event, that the next agent
// takes over.
func (w *output) fallback(from, to, reason string) {
	if w.o.Format == FormatJSONL {
		w.jsonl(fallbackEvent{V: EnvelopeVersion, TS: w.ts(), Type: "fallback", From: from, To: to, Reason: reason})
	}
	w.line(w.color("33", fmt.Sprintf("%s: %s; continuing with %s", w.name(), reason, to)))
}
