package acpclient

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// ACPDecoder turns the agent-to-client side of an ACP session into Events.
// An update for a tool call never announced is reported as a new one.
type ACPDecoder struct {
	Quirks Quirks
	// calls are the running tool calls as their tool_call and updates
	// described them (a finished one is zero), for permission requests that
	// name only the id; requests are decoded on other goroutines, hence mu.
	mu    sync.Mutex
	calls map[string]adapters.ToolCall
	// cost is the last cost the agent told (ACP's is the session's so
	// far), costBase what it was when the turn began (EndTurn).
	cost, costBase float64
	held           atomic.Pointer[adapters.Event] // the turn may end on another goroutine
	Follow         ShellFollower                  // set by the session from Quirks.FollowShell
}

// Quirks are one agent's departures from ACP, declared in its own package.
type Quirks struct {
	// ErrorChunk returns the message of a chunk announcing a failed model
	// call ("" for an ordinary chunk). Such a chunk is held until the next
	// content: dropped when the prompt's error repeats it, else emitted.
	ErrorChunk func(text string) string
	// ResultUsage reads token usage an agent reports outside ACP's usage
	// field of a prompt result.
	ResultUsage func(result json.RawMessage) *adapters.Usage
	// PermissionInput reads the raw input of a permission request that
	// carries none from what the request shows (nil: none there either).
	PermissionInput func(tool adapters.ToolCall) json.RawMessage
	// FollowShell, for an agent whose shell keeps its directory between
	// calls, follows one session's shell (started in cwd).
	FollowShell func(cwd string, addDirs []string) ShellFollower
}

// ShellFollower sees every tool call (as its tool_call, updates and permission
// request described it so far) and says where a permission request's command
// runs: the directories it may run in, or why hub cannot tell (asked every time).
type ShellFollower interface {
	Saw(tool adapters.ToolCall)
	Where(tool adapters.ToolCall) (dirs []string, lost string)
}

// acpUpdate is the union of every SessionUpdate variant hub reads.
type acpUpdate struct {
	SessionUpdate     string                    `json:"sessionUpdate"`
	Content           *acpContentBlock          `json:"content"` // a chunk's; a tool call's is read apart
	MessageID         string                    `json:"messageId"`
	ToolCallID        string                    `json:"toolCallId"`
	Entries           []adapters.PlanEntry      `json:"entries"`
	AvailableCommands []schema.AvailableCommand `json:"availableCommands"`
	Used              int64                     `json:"used"`
	Size              int64                     `json:"size"`
	Cost              *schema.Cost              `json:"cost"`
	Title             *string                   `json:"title"`
}

// acpContentBlock is an ACP ContentBlock decoded without schema's checks:
// a block hub cannot show is left out or kept raw, not an error.
type acpContentBlock schema.ContentBlock

// acpToolCall is a ToolCall or ToolCallUpdate, its content read without
// schema's checks and its _meta read for vendor tool names.
type acpToolCall struct {
	schema.ToolCallUpdate
	Content   []acpToolContent     `json:"content"`
	Locations []adapters.Location  `json:"locations"`
	Meta      map[string]acpMetaNS `json:"_meta"`
}

// acpMetaNS reads vendor tool names such as _meta.qoder.toolName.
type acpMetaNS struct {
	ToolName string `json:"toolName"`
}

// acpToolContent is a diff or terminal (named as in ToolContent) or a content block.
type acpToolContent struct {
	adapters.ToolContent
	Content *acpContentBlock `json:"content"`
}

// DecodeUpdate decodes the `update` of one session/update notification.
func (d *ACPDecoder) DecodeUpdate(update json.RawMessage) []adapters.Event {
	return d.settle(d.decodeUpdate(update))
}

// updateOf is the `update` of session/update params, nil without one.
func updateOf(params json.RawMessage) json.RawMessage {
	var p struct {
		Update json.RawMessage `json:"update"`
	}
	_ = adapters.Unmarshal(params, &p)
	return p.Update
}

// EndTurn passes the events that end a prompt turn through the decoder: a
// held error chunk comes out before them, or not at all when they repeat it.
func (d *ACPDecoder) EndTurn(evs []adapters.Event) []adapters.Event {
	d.mu.Lock()
	d.costBase = d.cost
	d.mu.Unlock()
	return d.settle(evs)
}

// settle holds an error chunk (Quirks.ErrorChunk) and releases the one held
// before, unless evs repeat it or carry only session state.
func (d *ACPDecoder) settle(evs []adapters.Event) []adapters.Event {
	if d.Quirks.ErrorChunk == nil {
		return evs
	}
	if len(evs) == 1 && evs[0].Type == adapters.EventText && d.Quirks.ErrorChunk(evs[0].Text) != "" {
		if prev := d.held.Swap(new(evs[0])); prev != nil {
			return []adapters.Event{*prev}
		}
		return nil
	}
	if d.held.Load() == nil || acpSessionLevel(evs) {
		return evs
	}
	prev := d.held.Swap(nil)
	if prev == nil || adapters.ErrorRepeats(evs, d.Quirks.ErrorChunk(prev.Text), false) {
		return evs
	}
	return append([]adapters.Event{*prev}, evs...)
}

func acpSessionLevel(evs []adapters.Event) bool {
	return !slices.ContainsFunc(evs, func(e adapters.Event) bool {
		return e.Type != adapters.EventUsage && e.Type != adapters.EventCommands && e.Type != adapters.EventSessionInfo
	})
}

func (d *ACPDecoder) decodeUpdate(update json.RawMessage) []adapters.Event {
	var u acpUpdate
	if err := adapters.Unmarshal(update, &u); err != nil {
		return []adapters.Event{adapters.RawEvent("acp:invalid", update)}
	}
	switch u.SessionUpdate {
	case "agent_message_chunk", "agent_thought_chunk":
		if u.Content == nil || u.Content.Type == "" {
			break
		}
		text, ok := acpBlockText(*u.Content)
		if !ok {
			return []adapters.Event{adapters.RawEvent("acp:"+u.SessionUpdate+"/"+u.Content.Type, update)}
		}
		t := adapters.EventText
		if u.SessionUpdate == "agent_thought_chunk" {
			t = adapters.EventThought
		}
		return []adapters.Event{{Type: t, Text: text, MessageID: u.MessageID}}
	case "tool_call", "tool_call_update":
		return d.tool(u.SessionUpdate, update)
	case "plan":
		return []adapters.Event{{Type: adapters.EventPlan, Plan: u.Entries}}
	case "available_commands_update":
		return []adapters.Event{{Type: adapters.EventCommands, Commands: acpCommands(u.AvailableCommands)}}
	case "usage_update":
		return []adapters.Event{{Type: adapters.EventUsage, Usage: d.usage(u)}}
	case "session_info_update":
		if u.Title == nil {
			break
		}
		return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{Title: *u.Title}}}
	}
	return []adapters.Event{adapters.RawEvent("acp:"+u.SessionUpdate, update)}
}

// acpBlockText renders the text-like content blocks as text.
func acpBlockText(c acpContentBlock) (string, bool) {
	switch c.Type {
	case "text":
		return c.Text, true
	case "resource_link":
		return c.URI, true
	case "resource":
		if c.Resource != nil && c.Resource.Text != "" {
			return c.Resource.Text, true
		}
	}
	return "", false
}

func (d *ACPDecoder) tool(kind string, update json.RawMessage) []adapters.Event {
	var tc acpToolCall
	if adapters.Unmarshal(update, &tc) != nil || tc.ToolCallID == "" {
		return []adapters.Event{adapters.RawEvent("acp:"+kind, update)}
	}
	tool := acpConvertTool(tc)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.calls == nil {
		d.calls = map[string]adapters.ToolCall{}
	}
	prev, known := d.calls[tc.ToolCallID]
	if kind == "tool_call" {
		prev, known = adapters.ToolCall{}, false
	}
	d.track(mergeTool(prev, tool))
	if d.Follow != nil {
		d.Follow.Saw(mergeTool(prev, tool))
	}
	if !known {
		acpFillDefaults(&tool)
		return []adapters.Event{{Type: adapters.EventToolCall, Tool: &tool}}
	}
	return []adapters.Event{{Type: adapters.EventToolUpdate, Tool: &tool}}
}

// track keeps what hub knows of a call until it finished; d.mu is held.
func (d *ACPDecoder) track(t adapters.ToolCall) {
	if t.Status == adapters.StatusCompleted || t.Status == adapters.StatusFailed {
		d.calls[t.ID] = adapters.ToolCall{}
		return
	}
	for _, c := range t.Content { // the files of its diffs, without their text
		if c.Type == adapters.ToolContentDiff && !slices.ContainsFunc(t.Locations, func(l adapters.Location) bool { return l.Path == c.Path }) {
			t.Locations = append(slices.Clip(t.Locations), adapters.Location{Path: c.Path})
		}
	}
	t.Content, t.RawOutput = nil, nil
	d.calls[t.ID] = t
}

// mergeTool is base with what over says: ACP's updates and permission
// requests send only the fields that changed.
func mergeTool(base, over adapters.ToolCall) adapters.ToolCall {
	base.ID = cmp.Or(over.ID, base.ID)
	base.Name = cmp.Or(over.Name, base.Name)
	base.Title = cmp.Or(over.Title, base.Title)
	base.Kind = cmp.Or(over.Kind, base.Kind)
	base.Status = cmp.Or(over.Status, base.Status)
	base.Locations = orNonEmpty(over.Locations, base.Locations)
	base.RawInput = orNonEmpty(over.RawInput, base.RawInput)
	base.Content = orNonEmpty(over.Content, base.Content)
	base.RawOutput = orNonEmpty(over.RawOutput, base.RawOutput)
	return base
}

func orNonEmpty[S ~[]E, E any](over, base S) S {
	if len(over) > 0 {
		return over
	}
	return base
}

// known is tool completed by what the call's tool_call and updates said.
func (d *ACPDecoder) known(tool adapters.ToolCall) adapters.ToolCall {
	d.mu.Lock()
	prev, ok := d.calls[tool.ID]
	d.mu.Unlock()
	if !ok || tool.ID == "" {
		return tool
	}
	return mergeTool(prev, tool)
}

func acpFillDefaults(t *adapters.ToolCall) {
	t.Title = cmp.Or(t.Title, t.Name, t.ID)
	t.Kind = cmp.Or(t.Kind, adapters.KindOther)
	t.Status = cmp.Or(t.Status, adapters.StatusPending)
}

func acpConvertTool(tc acpToolCall) adapters.ToolCall {
	t := adapters.ToolCall{ID: tc.ToolCallID, Name: cmp.Or(tc.Name, acpMetaToolName(tc.Meta)), Title: tc.Title,
		Kind: adapters.ToolKind(tc.Kind), Status: adapters.ToolStatus(tc.Status), Locations: tc.Locations,
		RawInput: adapters.RawOrNil(tc.RawInput), RawOutput: adapters.RawOrNil(tc.RawOutput)}
	for _, c := range tc.Content {
		if tcc, ok := acpConvertToolContent(c); ok {
			t.Content = append(t.Content, tcc)
		}
	}
	return t
}

// acpMetaToolName picks the first namespace (by name, so the choice is
// stable) that names the tool.
func acpMetaToolName(meta map[string]acpMetaNS) string {
	var ns, name string
	for k, v := range meta {
		if v.ToolName != "" && (name == "" || k < ns) {
			ns, name = k, v.ToolName
		}
	}
	return name
}

func acpConvertToolContent(c acpToolContent) (adapters.ToolContent, bool) {
	switch c.Type {
	case "diff":
		return adapters.ToolContent{Type: adapters.ToolContentDiff, Path: c.Path, OldText: c.OldText, NewText: c.NewText}, true
	case "terminal":
		return adapters.ToolContent{Type: adapters.ToolContentTerminal, TerminalID: c.TerminalID}, true
	case "content":
		if c.Content == nil {
			return adapters.ToolContent{}, false
		}
		if c.Content.Type == "image" {
			return adapters.ToolContent{Type: adapters.ToolContentImage, Data: c.Content.Data, MimeType: c.Content.MimeType}, true
		}
		if text, ok := acpBlockText(*c.Content); ok {
			return adapters.ToolContent{Type: adapters.ToolContentText, Text: text}, true
		}
	}
	return adapters.ToolContent{}, false
}

// DecodePermission decodes session/request_permission params into a request
// whose options keep the agent's optionIds; fields the toolCall leaves out
// come from the call's tool_call and updates.
func (d *ACPDecoder) DecodePermission(params json.RawMessage) (*adapters.PermissionRequest, error) {
	var p struct {
		ToolCall acpToolCall               `json:"toolCall"`
		Options  []schema.PermissionOption `json:"options"`
	}
	if err := adapters.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	tool := d.known(acpConvertTool(p.ToolCall))
	if tool.RawInput == nil && d.Quirks.PermissionInput != nil {
		tool.RawInput = d.Quirks.PermissionInput(tool)
	}
	acpFillDefaults(&tool)
	opts := make([]adapters.PermissionOption, 0, len(p.Options))
	for _, o := range p.Options {
		opts = append(opts, adapters.PermissionOption{ID: o.OptionID, Name: o.Name, Kind: adapters.PermissionOptionKind(o.Kind)})
	}
	var lost string
	if d.Follow != nil {
		d.Follow.Saw(tool)
		tool.Dirs, lost = d.Follow.Where(tool)
	}
	pr := adapters.NewPermissionRequest(tool, opts)
	pr.MustAsk = lost
	return pr, nil
}

func acpCommands(in []schema.AvailableCommand) []adapters.Command {
	out := make([]adapters.Command, 0, len(in))
	for _, c := range in {
		cmd := adapters.Command{Name: c.Name, Description: c.Description}
		if c.Input != nil {
			cmd.InputHint = c.Input.Hint
		}
		out = append(out, cmd)
	}
	return out
}

// usage reads a usage_update. Its cost is the agent session's so far; hub's
// is the turn's.
func (d *ACPDecoder) usage(u acpUpdate) *adapters.Usage {
	us := &adapters.Usage{ContextUsed: u.Used, ContextSize: u.Size}
	if u.Cost != nil && strings.EqualFold(u.Cost.Currency, "USD") {
		d.mu.Lock()
		us.CostUSD = new(u.Cost.Amount - d.costBase)
		d.cost = u.Cost.Amount
		d.mu.Unlock()
	}
	return us
}

// PromptResult reads a session/prompt result: the stop reason and token
// usage from the unstable `usage` field, else from the agent's quirk.
func (d *ACPDecoder) PromptResult(result json.RawMessage) (adapters.StopReason, *adapters.Usage) {
	var r schema.PromptResponse
	_ = adapters.Unmarshal(result, &r)
	usage := acpResultUsage(r.Usage)
	if usage == nil && d.Quirks.ResultUsage != nil {
		usage = d.Quirks.ResultUsage(result)
	}
	return cmp.Or(adapters.StopReason(r.StopReason), adapters.StopEndTurn), usage
}

// ResultEvents end a turn the agent answered: its usage when known, and done.
func (d *ACPDecoder) ResultEvents(result json.RawMessage) []adapters.Event {
	stop, usage := d.PromptResult(result)
	var out []adapters.Event
	if usage != nil {
		out = append(out, adapters.Event{Type: adapters.EventUsage, Usage: usage})
	}
	return append(out, adapters.Event{Type: adapters.EventDone, StopReason: stop})
}

func acpResultUsage(pu *schema.Usage) *adapters.Usage {
	if pu == nil || pu.InputTokens+pu.OutputTokens == 0 {
		return nil
	}
	return &adapters.Usage{InputTokens: pu.InputTokens, OutputTokens: pu.OutputTokens,
		ThoughtTokens: deref(pu.ThoughtTokens), CacheReadTokens: deref(pu.CachedReadTokens),
		CacheWriteTokens: deref(pu.CachedWriteTokens)}
}

// ACPError turns a JSON-RPC error from an ACP agent into a user-facing error.
func ACPError(code int, message string, data any) *adapters.ErrorInfo {
	e := &adapters.ErrorInfo{Message: adapters.OneLine(message), Code: adapters.CodeProtocol, Fatal: true}
	switch {
	case code == schema.CodeAuthRequired:
		e.Code = adapters.CodeAuth
	case code >= 400 && code <= 599: // qodercli and gemini pass a model call's HTTP status on
		e.Code = adapters.StatusCode(code)
	}
	if b, _ := json.Marshal(data); string(b) != "null" {
		e.Detail = adapters.OneLine(string(b))
	}
	return e
}
