package transcript

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/mask"
)

// Markdown renders a transcript as a readable conversation: the user's
// prompts, the agent's text, and each tool call as one line with its last
// status. Native-loop history messages, audited events, hub acp's updates
// and hub run's briefs read the same. The heading is the last session
// record's (hub acp's index appends one at each change), started when the
// first one was.
func Markdown(recs []Record) string {
	m := mdWriter{status: map[string]string{}}
	for _, r := range recs {
		switch {
		case r.Session != nil:
			started := cmp.Or(m.meta.Created, r.Session.Created, r.Time)
			m.meta = *r.Session
			m.meta.Created = started
		case r.Type == TypeUpdate:
			m.update(r.Update)
		case r.Brief != nil:
			m.brief(*r.Brief)
		case r.Type == TypePrompt:
			m.section("User", contentText(r.Prompt))
			m.agent = r.Agent
		case r.Type == TypeMessage:
			m.message(r.Message)
		case r.Type == TypeCompaction:
			m.section("Summary of the earlier conversation", r.Summary)
		case r.Event != nil:
			m.event(*r.Event)
		}
	}
	m.flushTools()
	head := ""
	if s := m.meta; s.ID != "" {
		head = fmt.Sprintf("# %s\n\nAgent: %s · cwd: %s · started %s\n", cmp.Or(s.Title, s.ID), s.Agent, s.Cwd, s.Created.Format("2006-01-02 15:04"))
	}
	return mask.Default().String(strings.TrimSpace(head+m.b.String())) + "\n"
}

type mdWriter struct {
	b     strings.Builder
	meta  Meta
	agent string // the last prompt's
	last  string
	// tools are the open section's tool calls, in order, with their status.
	tools  []string
	status map[string]string
}

func (m *mdWriter) section(title, text string) {
	m.flushTools()
	fmt.Fprintf(&m.b, "\n## %s\n\n%s\n", title, strings.TrimSpace(text))
	m.last = title
}

// agentText appends text to the agent's section, opening one if needed.
func (m *mdWriter) agentText(text string) {
	if m.last != "agent" {
		m.flushTools()
		fmt.Fprintf(&m.b, "\n## %s\n\n", cmp.Or(m.agent, m.meta.Agent, "agent"))
		m.last = "agent"
	}
	m.b.WriteString(text)
}

func (m *mdWriter) tool(id, title, status string) {
	m.agentText("")
	if _, seen := m.status[id]; !seen {
		m.tools = append(m.tools, id+"\x00"+title)
	}
	m.status[id] = status
}

func (m *mdWriter) flushTools() {
	for _, t := range m.tools {
		id, title, _ := strings.Cut(t, "\x00")
		fmt.Fprintf(&m.b, "\n- tool: %s (%s)", title, m.status[id])
	}
	if len(m.tools) > 0 {
		m.b.WriteString("\n")
	}
	m.tools = nil
}

func (m *mdWriter) event(ev adapters.Event) {
	switch ev.Type {
	case adapters.EventText:
		m.agentText(ev.Text)
	case adapters.EventToolCall:
		if ev.Tool != nil {
			m.tool(ev.Tool.ID, ev.Tool.Title, string(ev.Tool.Status))
		}
	case adapters.EventToolUpdate:
		if ev.Tool != nil && ev.Tool.Status != "" {
			if _, ok := m.status[ev.Tool.ID]; ok {
				m.status[ev.Tool.ID] = string(ev.Tool.Status)
			}
		}
	case adapters.EventPlan:
		m.agentText("\n\nPlan:\n")
		for _, e := range ev.Plan {
			fmt.Fprintf(&m.b, "- [%s] %s\n", e.Status, e.Content)
		}
	}
}

// EventOf is the event hub acp made a session update from, as far as a
// transcript or a digest reads it back: text, a tool call's id, title and
// status, a plan. Thoughts and the rest are no event.
func EventOf(u schema.SessionUpdate) adapters.Event {
	switch {
	case u.AgentMessageChunk != nil:
		return adapters.Event{Type: adapters.EventText, Text: u.AgentMessageChunk.Content.Text, MessageID: u.AgentMessageChunk.MessageID}
	case u.ToolCall != nil:
		return adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: u.ToolCall.ToolCallID, Title: u.ToolCall.Title,
			Status: adapters.ToolStatus(u.ToolCall.Status)}}
	case u.ToolCallUpdate != nil:
		return adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: u.ToolCallUpdate.ToolCallID,
			Status: adapters.ToolStatus(u.ToolCallUpdate.Status)}}
	case u.Plan != nil:
		ev := adapters.Event{Type: adapters.EventPlan, Plan: []adapters.PlanEntry{}}
		for _, e := range u.Plan.Entries {
			ev.Plan = append(ev.Plan, adapters.PlanEntry(e))
		}
		return ev
	}
	return adapters.Event{}
}

// update renders one ACP session/update: the user's text, else as its event.
func (m *mdWriter) update(raw json.RawMessage) {
	var u schema.SessionUpdate
	_ = json.Unmarshal(raw, &u) // one of another shape is no event
	switch c := u.UserMessageChunk; {
	case c != nil && m.last == "User":
		m.b.WriteString(c.Content.Text)
	case c != nil:
		m.section("User", c.Content.Text)
	default:
		m.event(EventOf(u))
	}
}

// brief renders the turns hub run kept of a run.
func (m *mdWriter) brief(b handover.Brief) {
	for n, t := range b.Turns {
		m.section("User", t.Request)
		m.agentText(t.Answer)
		for i, title := range t.Tools {
			m.tool(fmt.Sprint("turn", n, "-", i), title, "called")
		}
	}
}

// message renders one native-loop history message.
func (m *mdWriter) message(raw json.RawMessage) {
	var msg struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	if json.Unmarshal(raw, &msg) != nil {
		return
	}
	text := messageText(msg.Content)
	switch msg.Role {
	case "user":
		m.section("User", text)
	case "assistant":
		if text != "" {
			m.agentText(text)
		}
		for _, tc := range msg.ToolCalls {
			m.tool(tc.ID, tc.Function.Name+" "+tc.Function.Arguments, "pending")
		}
	case "tool":
		m.event(adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: msg.ToolCallID, Status: adapters.StatusCompleted}})
	}
}

// messageText is a message's content: a string, or parts read as content.
func messageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []adapters.Content
	_ = json.Unmarshal(raw, &parts)
	return contentText(parts)
}

func contentText(cs []adapters.Content) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Type == adapters.ContentText {
			b.WriteString(c.Text)
		} else {
			b.WriteString("[" + string(c.Type) + "]")
		}
	}
	return b.String()
}
