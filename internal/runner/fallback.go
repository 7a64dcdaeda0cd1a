package runner

import (
	"cmp"
	"context"

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

// runChain runs the agent and, when it could not do the work, each
// fallback agent in turn; the summary is the last attempt's, naming the
// agent that answered and every attempt.
func runChain(ctx context.Context, o Options, out *output) Summary {
	chain := append([]string{o.Agent}, o.Fallback...)
	var attempts []Attempt
	var s Summary
	var usage *adapters.Usage
	var r *run
	start, before := o.Now(), conversation.TakeSnapshot(ctx, o.Cwd)
	for i, agent := range chain {
		r = &run{o: o, start: o.Now(), out: out, fallbackNext: i < len(chain)-1}
		if r.o.Agent = agent; i > 0 && loadTranscript(o.TranscriptDir, o.ResumeID) == nil {
			r.o.ResumeID, r.o.Fork = "", false // another agent cannot resume the first one's session
		}
		s = r.execute(ctx)
		usage = conversation.AddUsage(usage, s.Usage)
		attempts = append(attempts, Attempt{Agent: agent, ExitCode: s.ExitCode, Error: s.Error, Detail: s.Detail})
		reason := conversation.FallbackReason(agent, r.failureClass(s), len(r.digest.ToolCalls) > 0)
		if reason == "" || !r.fallbackNext {
			break
		}
		attempts[i].Fallback = reason
		out.fallback(agent, chain[i+1], reason)
		if r.promptText != "" { // read once: the next agent gets the same prompt
			o.Prompt, o.ReadPrompt = r.promptText, nil
		}
	}
	s.Agent, s.Usage, s.DurationMs = r.o.Agent, usage, o.Now().Sub(start).Milliseconds()
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
