package acp

import (
	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// Crash recovery: a crash costs one turn. The next prompt starts the agent
// again (conversation.Agent), resuming its own session where it can; an
// agent that comes back without the conversation (it cannot resume, its
// resume failed, or the session switched to it) gets a briefing of hub's
// record with the next prompt.

// answeredAfter reports whether a turn after the history's first since
// entries got an answer: only then does an agent that has not seen them
// miss something. Caller holds ss.mu.
func (ss *session) answeredAfter(since int) bool {
	hist := ss.rec.History
	if seen := since - ss.dropped; seen > 0 {
		hist = hist[min(seen, len(hist)):]
	}
	for _, u := range hist {
		if u.AgentMessageChunk != nil || u.ToolCall != nil {
			return true
		}
	}
	return false
}

// withBriefing puts the briefing in front of the prompt when the agent
// started without the conversation, once, and tells the user.
func (ss *session) withBriefing(content []adapters.Content) []adapters.Content {
	ss.mu.Lock()
	brief, briefed := ss.pendingBrief, ss.briefed
	ss.pendingBrief, ss.briefed = "", false
	ss.mu.Unlock()
	if brief == "" && !briefed {
		return content
	}
	ss.emit(schema.SessionUpdate{AgentThoughtChunk: &schema.ContentChunk{Content: schema.TextBlock(
		"hub gave the agent its record of the conversation it missed.\n")}})
	if brief == "" {
		return content
	}
	return append([]adapters.Content{{Type: adapters.ContentText, Text: brief}}, content...)
}
