package claude

import (
	"cmp"
	"encoding/json"

	"github.com/hubdev/hub/adapters"
)

// claudeStreamEvent is one raw Anthropic Messages SSE event.
type claudeStreamEvent struct {
	Type         string           `json:"type"`
	Index        int              `json:"index"`
	ContentBlock *claudeBlockJSON `json:"content_block"`
	Delta        *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
	Message *claudeMessage `json:"message"` // message_start's
	Usage   *claudeUsage   `json:"usage"`   // message_delta's counts so far
}

func (d *ClaudeDecoder) streamEvent(l *claudeLine, line []byte) []adapters.Event {
	var ev claudeStreamEvent
	if err := adapters.Unmarshal(l.Event, &ev); err != nil {
		return []adapters.Event{adapters.RawEvent("claude:stream_event", line)}
	}
	parent := l.ParentToolUseID
	key := claudeBlockKey{parent: parent, index: ev.Index}
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			d.msgID[parent], d.request[parent] = ev.Message.ID, ev.Message.Usage
		}
	case "message_delta":
		return d.requestUsage(parent, ev.Usage)
	case "content_block_start":
		if ev.ContentBlock != nil {
			d.blocks[key] = &claudeBlock{kind: ev.ContentBlock.Type, id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
		}
	case "content_block_delta":
		return d.blockDelta(l, parent, key, &ev)
	case "content_block_stop":
		b := d.blocks[key]
		delete(d.blocks, key)
		if b != nil && b.kind == "tool_use" {
			return d.toolUse(b.id, b.name, b.input)
		}
	}
	return nil
}

func (d *ClaudeDecoder) blockDelta(l *claudeLine, parent string, key claudeBlockKey, ev *claudeStreamEvent) []adapters.Event {
	if ev.Delta == nil {
		return nil
	}
	msgID := cmp.Or(l.APIMessageID, d.msgID[parent])
	switch ev.Delta.Type {
	case "text_delta", "thinking_delta":
		kind, text := "text", ev.Delta.Text
		if ev.Delta.Type == "thinking_delta" {
			kind, text = "thinking", ev.Delta.Thinking
		}
		// Remember streamed text so the assistant block repeating it is not shown again:
		// by message id when known, else per content block (qodercli sends no message_start).
		if msgID != "" {
			d.streamed[msgID] = true
		} else {
			d.noteUnclaimed(parent, key.index, kind, text)
		}
		if text != "" {
			return []adapters.Event{claudeBlockEvent(kind, text, msgID)}
		}
	case "input_json_delta":
		if b := d.blocks[key]; b != nil {
			b.input = append(b.input, ev.Delta.PartialJSON...)
		}
	}
	return nil
}

// claudeMessage is the `message` of assistant and user lines and of message_start.
type claudeMessage struct {
	ID      string        `json:"id"`
	Content claudeContent `json:"content"`
	Usage   *claudeUsage  `json:"usage"`
}

// claudeContent is a message's or a tool result's content: a string or a list of blocks.
type claudeContent []claudeBlockJSON

func (c *claudeContent) UnmarshalJSON(b []byte) error {
	if b[0] != '"' {
		return adapters.Unmarshal(b, (*[]claudeBlockJSON)(c))
	}
	var s string
	err := adapters.Unmarshal(b, &s)
	*c = claudeContent{{Type: "text", Text: s}}
	return err
}

type claudeBlockJSON struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *struct {
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

func (d *ClaudeDecoder) assistant(l *claudeLine, line []byte) []adapters.Event {
	var m claudeMessage
	if adapters.Unmarshal(l.Message, &m) != nil {
		return []adapters.Event{adapters.RawEvent("claude:assistant", line)}
	}
	if l.IsAPIError {
		d.apiError = claudeErrorText(l.Error)
		return nil // the result line carries the same error
	}
	streamed := d.streamed[m.ID]
	parent := l.ParentToolUseID
	var out []adapters.Event
	for i := range m.Content {
		b := &m.Content[i]
		switch b.Type {
		case "text", "thinking":
			text := b.Text
			if b.Type == "thinking" {
				text = b.Thinking
			}
			if !streamed && len(d.unclaimed) > 0 {
				text = d.claimStreamed(parent, b.Type, text)
			}
			if !streamed && text != "" {
				out = append(out, claudeBlockEvent(b.Type, text, m.ID))
			}
		case "tool_use", "server_tool_use":
			out = append(out, d.toolUse(b.ID, b.Name, b.Input)...)
		}
	}
	return out
}

// toolUse emits a tool call once per id, whichever of the partial stream or the complete
// assistant block arrives first.
func (d *ClaudeDecoder) toolUse(id, name string, input []byte) []adapters.Event {
	if id == "" || d.tools[id] != nil {
		return nil
	}
	if len(input) == 0 {
		input = []byte("{}")
	}
	if !json.Valid(input) {
		return nil // incomplete partial JSON; the assistant block will follow
	}
	rec := &claudeToolRecord{name: name}
	d.tools[id] = rec
	d.isolated = d.isolated || movesSubagent(name, input)
	if name == "TodoWrite" {
		if plan, ok := claudePlan(input); ok {
			rec.plan = true
			return []adapters.Event{{Type: adapters.EventPlan, Plan: plan}}
		}
	}
	if claudeIsTaskTool(name) {
		rec.plan = true
		return d.taskUse(id, name, input)
	}
	tc := ClaudeToolCall(id, name, input)
	rec.edit = tc.Kind == adapters.KindEdit
	return []adapters.Event{{Type: adapters.EventToolCall, Tool: &tc}}
}

func claudePlan(input []byte) ([]adapters.PlanEntry, bool) {
	var in struct {
		Todos []struct {
			Content  string `json:"content"`
			Status   string `json:"status"`
			Priority string `json:"priority"`
		} `json:"todos"`
	}
	if adapters.Unmarshal(input, &in) != nil || in.Todos == nil {
		return nil, false
	}
	plan := make([]adapters.PlanEntry, 0, len(in.Todos))
	for _, t := range in.Todos {
		plan = append(plan, claudePlanEntry(t.Content, t.Status, t.Priority))
	}
	return plan, true
}

// claudePlanEntry is a todo or task in ACP's terms; a priority or status ACP lacks is
// medium or pending.
func claudePlanEntry(content, status, priority string) adapters.PlanEntry {
	if priority != "high" && priority != "low" {
		priority = "medium"
	}
	if status != "in_progress" && status != "completed" {
		status = "pending"
	}
	return adapters.PlanEntry{Content: content, Priority: priority, Status: status}
}

func (d *ClaudeDecoder) user(l *claudeLine) []adapters.Event {
	var m claudeMessage
	if adapters.Unmarshal(l.Message, &m) != nil {
		return nil
	}
	var out []adapters.Event
	for i := range m.Content {
		b := &m.Content[i]
		if b.Type != "tool_result" {
			continue
		}
		rec := d.tools[b.ToolUseID]
		if rec != nil && rec.plan {
			if claudeIsTaskTool(rec.name) {
				out = append(out, d.taskResult(b, rec, l.ToolUseResult)...)
			}
			continue
		}
		out = append(out, adapters.Event{Type: adapters.EventToolUpdate, Tool: claudeToolResult(b, rec, l.ToolUseResult)})
	}
	return out
}

func claudeToolResult(b *claudeBlockJSON, rec *claudeToolRecord, structured json.RawMessage) *adapters.ToolCall {
	tc := &adapters.ToolCall{ID: b.ToolUseID, Status: adapters.StatusCompleted}
	if b.IsError {
		tc.Status = adapters.StatusFailed
	}
	out := b.Content
	if len(structured) > 0 && string(structured) != "null" {
		out = structured
	}
	tc.RawOutput = append(json.RawMessage(nil), out...)
	if rec != nil && rec.edit && !b.IsError {
		return tc // keep the diff shown by the tool call
	}
	tc.Content = claudeResultContent(b.Content)
	return tc
}

func claudeResultContent(raw json.RawMessage) []adapters.ToolContent {
	var blocks claudeContent
	if adapters.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []adapters.ToolContent
	for _, c := range blocks {
		switch {
		case c.Type == "text" && c.Text != "":
			out = append(out, adapters.ToolContent{Type: adapters.ToolContentText, Text: c.Text})
		case c.Type == "image" && c.Source != nil && c.Source.Data != "":
			out = append(out, adapters.ToolContent{Type: adapters.ToolContentImage, MimeType: c.Source.MediaType, Data: c.Source.Data})
		}
	}
	return out
}
