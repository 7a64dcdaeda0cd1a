package acp

import (
	"path/filepath"

	"github.com/hubdev/hub/adapters"
)

// mapEvent is the one place adapters.Event becomes ACP session updates
// (permission and done are handled by the turn loop).
func (ss *session) mapEvent(ev adapters.Event) []SessionUpdate {
	switch ev.Type {
	case adapters.EventText:
		if ev.Text == "" {
			return nil
		}
		return []SessionUpdate{{AgentMessageChunk: &ContentChunk{Content: TextBlock(ev.Text), MessageID: ev.MessageID}}}
	case adapters.EventThought:
		if ev.Text == "" {
			return nil
		}
		return []SessionUpdate{{AgentThoughtChunk: &ContentChunk{Content: TextBlock(ev.Text), MessageID: ev.MessageID}}}
	case adapters.EventToolCall, adapters.EventToolUpdate:
		if ev.Tool == nil || ev.Tool.ID == "" {
			return nil
		}
		return []SessionUpdate{ss.toolUpdate(*ev.Tool)}
	case adapters.EventPlan:
		entries := make([]PlanEntry, 0, len(ev.Plan))
		for _, e := range ev.Plan {
			entries = append(entries, PlanEntry{Content: e.Content, Priority: oneOf(e.Priority, "medium", "high", "medium", "low"), Status: oneOf(e.Status, "pending", "pending", "in_progress", "completed")})
		}
		return []SessionUpdate{{Plan: &Plan{Entries: entries}}}
	case adapters.EventUsage:
		return usageUpdate(ev.Usage)
	case adapters.EventCommands:
		ss.mu.Lock()
		ss.agentCommands = ev.Commands
		ss.mu.Unlock()
		var cmds []AvailableCommand
		if ss.srv.opts.Skills != nil {
			cmds = appendCommands(cmds, ss.srv.opts.Skills.Commands(ss.rec.Cwd))
		}
		return []SessionUpdate{{AvailableCommands: &AvailableCommandsUpdate{AvailableCommands: appendCommands(cmds, ev.Commands)}}}
	case adapters.EventSessionInfo:
		return ss.sessionInfo(ev.Session)
	case adapters.EventError:
		if ev.Error == nil {
			return nil
		}
		return []SessionUpdate{{AgentMessageChunk: &ContentChunk{Content: TextBlock(errorText(ev.Error))}}}
	case adapters.EventRaw:
		ss.srv.log.Debug().Str("source", ev.Source).RawJSON("raw", rawOr(ev.Raw)).Msg("unmapped agent record")
	}
	return nil
}

func rawOr(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

func usageUpdate(u *adapters.Usage) []SessionUpdate {
	if u == nil || u.ContextSize <= 0 {
		return nil
	}
	used := u.ContextUsed
	if used == 0 {
		used = u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	}
	up := &UsageUpdate{Used: uint64(max(used, 0)), Size: uint64(u.ContextSize)}
	if u.CostUSD != nil {
		up.Cost = &Cost{Amount: *u.CostUSD, Currency: "USD"}
	}
	return []SessionUpdate{{Usage: up}}
}

func (ss *session) sessionInfo(info *adapters.SessionInfo) []SessionUpdate {
	if info == nil {
		return nil
	}
	ss.mu.Lock()
	if info.AgentSessionID != "" {
		ss.rec.AgentSessionID = info.AgentSessionID
	}
	changed := info.Title != "" && info.Title != ss.rec.Title
	if changed {
		ss.rec.Title = info.Title
	}
	ss.mu.Unlock()
	ss.save()
	if !changed {
		return nil
	}
	now := ss.srv.opts.Now().UTC().Format("2006-01-02T15:04:05Z")
	return []SessionUpdate{{SessionInfo: &SessionInfoUpdate{Title: info.Title, UpdatedAt: now}}}
}

func oneOf(v, def string, allowed ...string) string {
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	return def
}

var toolKinds = []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}

// toolUpdate returns tool_call for the first report of an id (so a
// tool_call always precedes its updates) and tool_call_update afterwards.
func (ss *session) toolUpdate(t adapters.ToolCall) SessionUpdate {
	ss.mu.Lock()
	seen := ss.seenTools[t.ID]
	ss.seenTools[t.ID] = true
	ss.mu.Unlock()
	u := ss.convertTool(t)
	if seen {
		return SessionUpdate{ToolCallUpdate: &u}
	}
	if u.Title == "" {
		u.Title = toolTitle(t)
	}
	if u.Kind == "" {
		u.Kind = "other"
	}
	if u.Status == "" {
		u.Status = "pending"
	}
	tc := ToolCall(u)
	return SessionUpdate{ToolCall: &tc}
}

// fullToolUpdate describes a tool inside a permission request.
func (ss *session) fullToolUpdate(t adapters.ToolCall) ToolCallUpdate {
	u := ss.convertTool(t)
	if u.Title == "" {
		u.Title = toolTitle(t)
	}
	return u
}

func toolTitle(t adapters.ToolCall) string {
	if t.Title != "" {
		return t.Title
	}
	if t.Name != "" {
		return t.Name
	}
	return "Tool call"
}

func (ss *session) convertTool(t adapters.ToolCall) ToolCallUpdate {
	u := ToolCallUpdate{ToolCallID: t.ID, Title: t.Title, Name: t.Name, RawInput: t.RawInput, RawOutput: t.RawOutput}
	if t.Kind != "" {
		u.Kind = oneOf(string(t.Kind), "other", toolKinds...)
	}
	if t.Status != "" {
		u.Status = oneOf(string(t.Status), "", "pending", "in_progress", "completed", "failed")
	}
	for _, l := range t.Locations {
		loc := ToolCallLocation{Path: ss.abs(l.Path)}
		if l.Line > 0 {
			line := l.Line
			loc.Line = &line
		}
		u.Locations = append(u.Locations, loc)
	}
	for _, c := range t.Content {
		if tc, ok := ss.toolContent(c); ok {
			u.Content = append(u.Content, tc)
		}
	}
	return u
}

func (ss *session) toolContent(c adapters.ToolContent) (ToolCallContent, bool) {
	switch c.Type {
	case adapters.ToolContentText:
		b := TextBlock(c.Text)
		return ToolCallContent{Type: "content", Content: &b}, true
	case adapters.ToolContentImage:
		b := ContentBlock{Type: BlockImage, Data: c.Data, MimeType: c.MimeType}
		return ToolCallContent{Type: "content", Content: &b}, true
	case adapters.ToolContentDiff:
		return ToolCallContent{Type: "diff", Path: ss.abs(c.Path), OldText: c.OldText, NewText: c.NewText}, true
	case adapters.ToolContentTerminal:
		if c.TerminalID == "" || ss.editor == nil || !ss.editor.referenceTerminal(c.TerminalID) {
			ss.srv.log.Warn().Str("terminal", c.TerminalID).Msg("terminal content dropped: not a live terminal of this session")
			return ToolCallContent{}, false
		}
		return ToolCallContent{Type: "terminal", TerminalID: c.TerminalID}, true
	}
	return ToolCallContent{}, false
}

// abs makes a path absolute against the session cwd.
func (ss *session) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(ss.rec.Cwd, p)
}
