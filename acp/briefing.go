package acp

import (
	"slices"
	"strings"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/transcript"
)

// briefing is hub's record of the conversation after the history's first
// since entries, for an agent that starts without it (or comes back to it),
// leaving out the prompt being answered; "" when no turn in it got an answer,
// or handover says none.
func (ss *session) briefing(since int) string {
	ss.mu.Lock()
	if ss.rec.Handover == handoverNone {
		ss.mu.Unlock()
		return ""
	}
	ss.flushChunk()
	hist := ss.rec.History
	if seen := since - ss.dropped; seen > 0 && seen <= len(hist) {
		hist = hist[seen:]
	}
	for len(hist) > 0 && hist[len(hist)-1].UserMessageChunk != nil {
		hist = hist[:len(hist)-1]
	}
	b := briefOf(hist)
	// The files the turns' digests found changed (shell-written ones too).
	b.Cwd, b.Files = ss.rec.Cwd, slices.Clone(ss.rec.Files)
	ss.mu.Unlock()
	for _, m := range ss.mcp {
		b.MCP = append(b.MCP, m.Name)
	}
	if !slices.ContainsFunc(b.Turns, func(t handover.Turn) bool { return t.Answer != "" || len(t.Tools) > 0 }) {
		return ""
	}
	b.Skills = ss.skillsUsed(b.Turns)
	return handover.Render(b)
}

// briefed spends the briefing put ahead of the prompts since the agent started
// without the conversation, once one reached it (conversation.TurnSpec.Reached):
// it has seen the whole history from now on.
func (ss *session) briefed() {
	ss.mu.Lock()
	p := ss.plan
	ss.plan, ss.rec.Since, ss.rec.Unbriefed = conversation.StartPlan{}, 0, false
	ss.mu.Unlock()
	if p.Briefs() {
		ss.emit(schema.SessionUpdate{AgentThoughtChunk: &schema.ContentChunk{Content: schema.TextBlock(
			"hub gave the agent its record of the conversation it missed.\n")}})
	}
}

// skillsUsed are the Agent Skills the turns' requests invoked as /commands.
func (ss *session) skillsUsed(turns []handover.Turn) []string {
	if ss.srv.opts.Skills == nil {
		return nil
	}
	var out []string
	cmds := ss.srv.opts.Skills.Commands(ss.rec.Cwd)
	for _, t := range turns {
		word, _, _ := strings.Cut(t.Request, " ")
		i := slices.IndexFunc(cmds, func(c adapters.Command) bool { return "/"+c.Name == word })
		if i >= 0 && !slices.Contains(out, cmds[i].Name+": "+cmds[i].Description) {
			out = append(out, cmds[i].Name+": "+cmds[i].Description)
		}
	}
	return out
}

// briefOf is the brief of a history: a user message starts a turn, whose
// updates, read back as events, make a conversation.Digest, as hub run's
// and a delegate's turns do.
func briefOf(hist []schema.SessionUpdate) handover.Brief {
	var b handover.Brief
	var d *conversation.Digest
	request := ""
	next := func() {
		if d != nil {
			d.AddTo(&b, request)
		}
		d, request = new(conversation.Digest), ""
	}
	for _, u := range hist {
		if c := u.UserMessageChunk; c != nil {
			if d == nil || d.Text() != "" || len(d.ToolCalls) > 0 {
				next()
			}
			request += c.Content.Text
			continue
		}
		if d == nil {
			next()
		}
		if c := u.AgentMessageChunk; c == nil || string(c.Content.Annotations) != string(forUser) { // not hub's own lines
			d.Note(transcript.EventOf(u))
		}
	}
	next()
	return b
}
