package acp

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// mapEvent is the one place adapters.Event becomes ACP session updates
// (permission and done are handled by the turn loop).
func (ss *session) mapEvent(ev adapters.Event) []schema.SessionUpdate {
	switch ev.Type {
	case adapters.EventText, adapters.EventThought:
		c := &schema.ContentChunk{Content: schema.TextBlock(ev.Text), MessageID: ev.MessageID}
		switch {
		case ev.Text == "":
			return nil
		case ev.Type == adapters.EventThought:
			return []schema.SessionUpdate{{AgentThoughtChunk: c}}
		}
		return []schema.SessionUpdate{{AgentMessageChunk: c}}
	case adapters.EventToolCall, adapters.EventToolUpdate:
		if ev.Tool == nil || ev.Tool.ID == "" {
			return nil
		}
		return []schema.SessionUpdate{ss.toolUpdate(*ev.Tool)}
	case adapters.EventPlan:
		entries := make([]schema.PlanEntry, 0, len(ev.Plan))
		for _, e := range ev.Plan {
			entries = append(entries, schema.PlanEntry{Content: e.Content, Priority: oneOf(e.Priority, "medium", "high", "medium", "low"), Status: oneOf(e.Status, "pending", "pending", "in_progress", "completed")})
		}
		return []schema.SessionUpdate{{Plan: &schema.Plan{Entries: entries}}}
	case adapters.EventUsage:
		return usageUpdate(ev.Usage, ss.costWith(ev.Usage))
	case adapters.EventCommands:
		ss.mu.Lock()
		ss.agentCommands = ev.Commands
		ss.mu.Unlock()
		return []schema.SessionUpdate{{AvailableCommands: &schema.AvailableCommandsUpdate{AvailableCommands: ss.commands()}}}
	case adapters.EventSessionInfo:
		return ss.sessionInfo(ev.Session)
	case adapters.EventCompaction:
		return ss.editor.compaction(ev.Compaction)
	case adapters.EventDecision:
		return ss.refusal(ev.Decision)
	case adapters.EventError:
		if ev.Error == nil {
			return nil
		}
		return []schema.SessionUpdate{hubLine(errorText(ev.Error))}
	case adapters.EventRaw:
		ss.srv.log.Debug().Str("source", ev.Source).RawJSON("raw", []byte(cmp.Or(string(ev.Raw), "null"))).Msg("unmapped agent record")
	}
	return nil
}

// forUser annotates what hub itself says in the conversation (an error, a
// refusal): not the agent's text, so the briefing leaves it out.
var forUser = json.RawMessage(`{"audience":["user"]}`)

// hubLine is a line hub says in the conversation.
func hubLine(text string) schema.SessionUpdate {
	b := schema.TextBlock(text)
	b.Annotations = forUser
	return schema.SessionUpdate{AgentMessageChunk: &schema.ContentChunk{Content: b}}
}

// usageOf is a turn's usage for its prompt response; nil when none came.
func usageOf(u *adapters.Usage) *schema.Usage {
	if u == nil {
		return nil
	}
	return &schema.Usage{TotalTokens: u.InputTokens + u.OutputTokens + u.ThoughtTokens + u.CacheReadTokens + u.CacheWriteTokens,
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, ThoughtTokens: nonZero(u.ThoughtTokens),
		CachedReadTokens: nonZero(u.CacheReadTokens), CachedWriteTokens: nonZero(u.CacheWriteTokens)}
}

// nonZero is &v, or nil for the zero value: a member the wire leaves out.
func nonZero[T comparable](v T) *T {
	if v == *new(T) {
		return nil
	}
	return &v
}

// usageUpdate reports u's context window and cost, the session's so far
// (ACP's is cumulative; nil: none told). Without a context size it is
// sent only for the cost, with size 0 (unknown).
func usageUpdate(u *adapters.Usage, cost *float64) []schema.SessionUpdate {
	if u == nil || (u.ContextSize <= 0 && cost == nil) {
		return nil
	}
	used := cmp.Or(u.ContextUsed, u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens)
	up := &schema.UsageUpdate{Used: uint64(max(used, 0)), Size: uint64(max(u.ContextSize, 0))}
	if cost != nil {
		up.Cost = &schema.Cost{Amount: *cost, Currency: "USD"}
	}
	return []schema.SessionUpdate{{Usage: up}}
}

// costWith is the session's cost with u's on top (the running attempt's
// so far, as every agent's usage tells it), nil when u tells none; with
// a nil u, the session's.
func (ss *session) costWith(u *adapters.Usage) *float64 {
	if u != nil && u.CostUSD == nil {
		return nil
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	c := ss.rec.Cost
	if u != nil {
		c += *u.CostUSD
	}
	return &c
}

// compaction reports the agent's context compaction to a client that
// advertised session.compaction; others get nothing (ACP forbids it).
func (e *editorClient) compaction(c *adapters.Compaction) []schema.SessionUpdate {
	if c == nil || c.ID == "" || e.caps.Session == nil || e.caps.Session.Compaction == nil {
		return nil
	}
	u := &schema.CompactionUpdate{CompactionID: c.ID, Status: c.Status, Error: c.Error}
	if c.Summary != "" {
		u.Summary = []schema.ContentBlock{schema.TextBlock(c.Summary)}
	}
	return []schema.SessionUpdate{{Compaction: u}}
}

func (ss *session) sessionInfo(info *adapters.SessionInfo) []schema.SessionUpdate {
	if info == nil {
		return nil
	}
	ss.mu.Lock()
	changed := info.Title != "" && info.Title != ss.rec.Title
	ss.rec.AgentSessionID, ss.rec.Title = cmp.Or(info.AgentSessionID, ss.rec.AgentSessionID), cmp.Or(info.Title, ss.rec.Title)
	ss.mu.Unlock()
	_ = ss.save() // logged
	if !changed {
		return nil
	}
	return []schema.SessionUpdate{{SessionInfo: &schema.SessionInfoUpdate{Title: info.Title, UpdatedAt: ss.srv.opts.Now().UTC().Format("2006-01-02T15:04:05Z")}}}
}

func oneOf(v, def string, allowed ...string) string {
	if slices.Contains(allowed, v) {
		return v
	}
	return def
}

var toolKinds = []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}

// toolUpdate returns tool_call for the first report of an id (so a
// tool_call always precedes its updates) and tool_call_update afterwards.
func (ss *session) toolUpdate(t adapters.ToolCall) schema.SessionUpdate {
	ss.mu.Lock()
	seen := ss.seenTools[t.ID]
	ss.seenTools[t.ID] = true
	ss.mu.Unlock()
	u := ss.editor.tool(t, !seen)
	if seen {
		return schema.SessionUpdate{ToolCallUpdate: &u}
	}
	u.Kind = cmp.Or(u.Kind, "other")
	u.Status = cmp.Or(u.Status, "pending")
	tc := schema.ToolCall(u)
	return schema.SessionUpdate{ToolCall: &tc}
}

// tool is a tool call as the editor gets it; full (a tool_call, or one a
// permission request shows) titles one the agent did not.
func (e *editorClient) tool(t adapters.ToolCall, full bool) schema.ToolCallUpdate {
	u := schema.ToolCallUpdate{ToolCallID: t.ID, Title: t.Title, Name: t.Name, RawInput: t.RawInput, RawOutput: t.RawOutput}
	if full {
		u.Title = conversation.ToolTitle(t)
	}
	if t.Kind != "" {
		u.Kind = oneOf(string(t.Kind), "other", toolKinds...)
	}
	if t.Status != "" {
		u.Status = oneOf(string(t.Status), "", "pending", "in_progress", "completed", "failed")
	}
	for _, l := range t.Locations {
		u.Locations = append(u.Locations, schema.ToolCallLocation{Path: e.abs(l.Path), Line: nonZero(max(l.Line, 0))})
	}
	for _, c := range t.Content {
		if tc, ok := e.toolContent(c); ok {
			u.Content = append(u.Content, tc)
		}
	}
	return u
}

func (e *editorClient) toolContent(c adapters.ToolContent) (schema.ToolCallContent, bool) {
	switch c.Type {
	case adapters.ToolContentText:
		return schema.ToolCallContent{Type: "content", Content: new(schema.TextBlock(c.Text))}, true
	case adapters.ToolContentImage:
		return schema.ToolCallContent{Type: "content", Content: &schema.ContentBlock{Type: schema.BlockImage, Data: c.Data, MimeType: c.MimeType}}, true
	case adapters.ToolContentDiff:
		return schema.ToolCallContent{Type: "diff", Path: e.abs(c.Path), OldText: c.OldText, NewText: c.NewText}, true
	case adapters.ToolContentTerminal:
		if c.TerminalID == "" || !e.referenceTerminal(c.TerminalID) {
			e.log.Warn().Str("terminal", c.TerminalID).Msg("terminal content dropped: not a live terminal of this session")
			return schema.ToolCallContent{}, false
		}
		return schema.ToolCallContent{Type: "terminal", TerminalID: c.TerminalID}, true
	}
	return schema.ToolCallContent{}, false
}
