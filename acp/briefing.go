package acp

import (
	"strings"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/handover"
)

// briefing returns hub's record of the conversation after the history's
// first since entries, for an agent that starts without it (or comes back
// to it: only what it missed); "" when no answer came in it, so there is
// nothing to tell, or handover says none. See package handover for what
// it holds.
func (ss *session) briefing(since int) string {
	ss.mu.Lock()
	missed := ss.rec.Handover != handoverNone && ss.answeredAfter(since)
	ss.mu.Unlock()
	if !missed {
		return ""
	}
	return handover.Render(ss.brief(since))
}

// brief reads the part of the record after since, minus the prompt being
// answered.
func (ss *session) brief(since int) handover.Brief {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.flushChunk()
	hist := ss.rec.History
	if seen := since - ss.dropped; seen > 0 && seen <= len(hist) {
		hist = hist[seen:]
	}
	for len(hist) > 0 && hist[len(hist)-1].UserMessageChunk != nil {
		hist = hist[:len(hist)-1]
	}
	b := briefOf(hist)
	b.Cwd = ss.rec.Cwd
	for _, f := range ss.rec.Files { // the digests': shell-written files too
		b.AddFile(f)
	}
	for _, m := range ss.mcp {
		b.MCP = append(b.MCP, m.Name)
	}
	b.Skills = ss.skillsUsed(b.Turns)
	return b
}

// skillsUsed are the Agent Skills the turns' requests invoked as /commands.
func (ss *session) skillsUsed(turns []handover.Turn) []string {
	if ss.srv.opts.Skills == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	cmds := ss.srv.opts.Skills.Commands(ss.rec.Cwd)
	for _, t := range turns {
		name, _, _ := strings.Cut(strings.TrimPrefix(t.Request, "/"), " ")
		if !strings.HasPrefix(t.Request, "/") || seen[name] {
			continue
		}
		for _, c := range cmds {
			if c.Name == name {
				seen[name] = true
				out = append(out, c.Name+": "+c.Description)
			}
		}
	}
	return out
}

// briefOf groups a history into turns (a user message starts one; its
// answer is the agent's text after its last tool call) and finds the
// latest plan.
func briefOf(hist []schema.SessionUpdate) handover.Brief {
	var b handover.Brief
	var cur *handover.Turn
	afterTool := false
	next := func() {
		b.Turns = append(b.Turns, handover.Turn{})
		cur = &b.Turns[len(b.Turns)-1]
	}
	for _, u := range hist {
		switch {
		case u.UserMessageChunk != nil:
			if cur == nil || cur.Answer != "" || len(cur.Tools) > 0 {
				next()
			}
			cur.Request += u.UserMessageChunk.Content.Text
		case u.AgentMessageChunk != nil:
			if cur == nil {
				next()
			}
			if afterTool {
				cur.Answer, afterTool = "", false
			}
			cur.Answer += u.AgentMessageChunk.Content.Text
		case u.ToolCall != nil:
			if cur != nil {
				cur.Tools = append(cur.Tools, u.ToolCall.Title)
			}
			afterTool = true
		case u.Plan != nil:
			b.Plan = b.Plan[:0]
			for _, e := range u.Plan.Entries {
				b.Plan = append(b.Plan, handover.PlanEntry{Content: e.Content, Status: e.Status})
			}
		}
	}
	return b
}
