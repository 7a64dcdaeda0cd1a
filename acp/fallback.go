package acp

import (
	"context"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// Fallback over ACP: when conversation's fallback rule says the session's
// agent could not do the work, the next agent its [agents.NAME] fallback
// names takes the turn over. The user is told in the conversation, and
// the agent option follows.

// driveWithFallback is drive, handing the turn to the fallback agents in
// turn while the agent before could not do the work.
func (ss *session) driveWithFallback(turnCtx context.Context, content []adapters.Content) (string, *adapters.ErrorInfo) {
	first := ss.agentName() // its list, as hub run and delegates follow the first agent's
	tried := map[string]bool{first: true}
	for {
		next := conversation.NextFallback(ss.agents(), ss.srv.opts.Fallback[first], tried, ss.srv.ready.check)
		reason, failure := ss.drive(turnCtx, content, next != "")
		ss.mu.Lock() // why the next agent should take the turn over; "": the failure stands
		why := conversation.FallbackReason(ss.rec.Agent, conversation.Classify(failure), ss.toolStarted)
		ss.mu.Unlock()
		if why == "" || turnCtx.Err() != nil || next == "" {
			return reason, failure
		}
		tried[next] = true
		ss.sayf("hub: %s; continuing with %s.\n\n", why, next)
		ss.mu.Lock()
		hadCommands := ss.switchLocked(next, nil) // drive retired a crashed agent; the next drive starts the new one
		if hadCommands {
			ss.sendCommands(true)
		}
		ss.send(schema.SessionUpdate{ConfigOption: &schema.ConfigOptionUpdate{ConfigOptions: ss.configOptions()}})
	}
}
