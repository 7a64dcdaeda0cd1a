// Package schema holds the Agent Client Protocol (v1) types and error codes,
// close to the JSON Schema in ../shared/acp: strict for what hub sends,
// lenient for what agents send. It imports nothing of hub, so the ACP
// server, the ACP client adapter and the decoders share one set of types.
package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// ErrUnknownUpdate marks a session/update kind this version does not know.
var ErrUnknownUpdate = errors.New("unknown session update kind")

// ProtocolVersion is the only ACP major version hub speaks.
const ProtocolVersion = 1

// Meta is the reserved _meta object; receivers must not interpret it.
type Meta map[string]any

// Implementation names a client or agent (clientInfo / agentInfo).
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Title   string `json:"title,omitempty"`
}

// Marker is an "object capability": supported when present and non-null.
type Marker struct{}

type FileSystemCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

// ClientSessionCapabilities gates optional update kinds and option types.
type ClientSessionCapabilities struct {
	ConfigOptions *struct {
		Boolean *Marker `json:"boolean,omitempty"`
	} `json:"configOptions,omitempty"`
	Notices    *Marker `json:"notices,omitempty"`
	Compaction *Marker `json:"compaction,omitempty"`
}

type AuthCapabilities struct {
	Terminal bool `json:"terminal"`
}

// ElicitationCapabilities lists the elicitation modes a client renders; a
// mode counts only when its key is present and not null.
type ElicitationCapabilities struct {
	Form json.RawMessage `json:"form,omitempty"`
	URL  json.RawMessage `json:"url,omitempty"`
}

// Supports reports whether mode ("form" or "url") was advertised.
func (e *ElicitationCapabilities) Supports(mode string) bool {
	if e == nil {
		return false
	}
	v := e.Form
	if mode == "url" {
		v = e.URL
	}
	return len(v) > 0 && string(v) != "null"
}

// CreateElicitationRequest is the params of elicitation/create in form mode.
type CreateElicitationRequest struct {
	SessionID       string            `json:"sessionId"`
	ToolCallID      string            `json:"toolCallId,omitempty"`
	Mode            string            `json:"mode"`
	Message         string            `json:"message"`
	RequestedSchema ElicitationSchema `json:"requestedSchema"`
}

// ElicitationSchema is a flat object schema of the form's fields.
type ElicitationSchema struct {
	Type       string                      `json:"type"`
	Properties map[string]ElicitationField `json:"properties"`
	Required   []string                    `json:"required,omitempty"`
}

// ElicitationField is one field: a string (an enum when Enum is set) or a
// multi-select array of strings.
type ElicitationField struct {
	Type        string            `json:"type"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Enum        []string          `json:"enum,omitempty"`
	Items       *ElicitationItems `json:"items,omitempty"`
}

// ElicitationItems are the choices of a multi-select field.
type ElicitationItems struct {
	Type string   `json:"type"`
	Enum []string `json:"enum"`
}

// CreateElicitationResponse's Action is accept (with Content), decline or cancel.
type CreateElicitationResponse struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content,omitempty"`
}

type ClientCapabilities struct {
	FS          FileSystemCapabilities     `json:"fs"`
	Terminal    bool                       `json:"terminal"`
	Auth        *AuthCapabilities          `json:"auth,omitempty"`
	Elicitation *ElicitationCapabilities   `json:"elicitation,omitempty"`
	Session     *ClientSessionCapabilities `json:"session,omitempty"`
	Meta        Meta                       `json:"_meta,omitempty"`
}

type InitializeRequest struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
}

type PromptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

// McpCapabilities lists the non-stdio MCP transports accepted.
type McpCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

type SessionCapabilities struct {
	List                  *Marker `json:"list,omitempty"`
	Delete                *Marker `json:"delete,omitempty"`
	Resume                *Marker `json:"resume,omitempty"`
	Close                 *Marker `json:"close,omitempty"`
	Fork                  *Marker `json:"fork,omitempty"` // unstable: session/fork
	AdditionalDirectories *Marker `json:"additionalDirectories,omitempty"`
}

type AgentAuthCapabilities struct {
	Logout *Marker `json:"logout,omitempty"`
}

type AgentCapabilities struct {
	LoadSession         bool                   `json:"loadSession"`
	PromptCapabilities  PromptCapabilities     `json:"promptCapabilities"`
	McpCapabilities     McpCapabilities        `json:"mcpCapabilities"`
	SessionCapabilities SessionCapabilities    `json:"sessionCapabilities"`
	Auth                *AgentAuthCapabilities `json:"auth,omitempty"`
}

// AuthMethod is an agent-handled (Type "") or terminal auth method.
type AuthMethod struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Type        string            `json:"type,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	// Meta carries the pre-stabilization form, _meta["terminal-auth"] =
	// TerminalAuth, for clients advertising clientCapabilities._meta["terminal-auth"].
	Meta Meta `json:"_meta,omitempty"`
}

// TerminalAuth is the _meta["terminal-auth"] of an auth method: the whole
// command the client runs in a terminal (not appended to the agent's).
type TerminalAuth struct {
	Label   string            `json:"label"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// TerminalAuthMeta is the key of TerminalAuth in _meta, in auth methods
// and in clientCapabilities._meta (true when the client runs them).
const TerminalAuthMeta = "terminal-auth"

type InitializeResponse struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AuthMethods       []AuthMethod      `json:"authMethods"`
	AgentInfo         *Implementation   `json:"agentInfo,omitempty"`
	// Meta carries extensions, e.g. steering: {supported: true} for _session/steering.
	Meta Meta `json:"_meta,omitempty"`
}

// ForkSessionRequest is the params of session/fork (unstable: the session-fork
// RFD); _meta.hub.agent names another agent to fork into.
type ForkSessionRequest struct {
	LoadSessionRequest
	Meta struct {
		Hub struct {
			Agent string `json:"agent,omitempty"`
		} `json:"hub"`
	} `json:"_meta"`
}

type ForkSessionResponse = NewSessionResponse

// SteeringRequest is the params of _session/steering (an extension claude-agent-acp
// and codex-acp serve): input for the running turn. idleBehavior "promptRequired"
// asks the agent to hand it back when it cannot steer, not run it as a turn of its own.
type SteeringRequest struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
	Meta      struct {
		Steering struct {
			IdleBehavior string `json:"idleBehavior,omitempty"`
		} `json:"steering"`
	} `json:"_meta"`
}

// Steering outcomes and reasons.
const (
	SteerInjected       = "injected"
	SteerStartedNewTurn = "startedNewTurn"
	SteerPromptRequired = "promptRequired"
	SteerIdleBehavior   = "promptRequired" // the idleBehavior that opts in
)

type SteeringResponse struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}

type AuthenticateRequest struct {
	MethodID string `json:"methodId"`
}

type EnvVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type HTTPHeader = EnvVariable

// McpServer is a union: stdio (Type ""), "http" or "sse".
type McpServer struct {
	Type    string        `json:"type,omitempty"`
	Name    string        `json:"name"`
	Command string        `json:"command,omitempty"`
	Args    []string      `json:"args,omitempty"`
	Env     []EnvVariable `json:"env,omitempty"`
	URL     string        `json:"url,omitempty"`
	Headers []HTTPHeader  `json:"headers,omitempty"`
}

// MarshalJSON writes the required arrays of each variant as [] not null.
func (m McpServer) MarshalJSON() ([]byte, error) {
	if m.Type == "" || m.Type == "stdio" {
		return json.Marshal(struct {
			Name    string        `json:"name"`
			Command string        `json:"command"`
			Args    []string      `json:"args"`
			Env     []EnvVariable `json:"env"`
		}{m.Name, m.Command, nonNil(m.Args), nonNil(m.Env)})
	}
	return json.Marshal(struct {
		Type    string       `json:"type"`
		Name    string       `json:"name"`
		URL     string       `json:"url"`
		Headers []HTTPHeader `json:"headers"`
	}{m.Type, m.Name, m.URL, nonNil(m.Headers)})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

type NewSessionRequest struct {
	Cwd                   string      `json:"cwd"`
	McpServers            []McpServer `json:"mcpServers"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
}

type SessionMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type SessionModeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []SessionMode `json:"availableModes"`
}

type NewSessionResponse struct {
	SessionID     string                `json:"sessionId"`
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
}

type LoadSessionRequest struct {
	SessionID             string      `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	McpServers            []McpServer `json:"mcpServers"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
}

type LoadSessionResponse struct {
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
}

type ResumeSessionRequest = LoadSessionRequest

type ResumeSessionResponse = LoadSessionResponse

// SessionIDRequest is the params of session/close, session/delete and session/cancel.
type SessionIDRequest struct {
	SessionID string `json:"sessionId"`
}

type ListSessionsRequest struct {
	Cwd    string `json:"cwd,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// SessionInfo is one entry of session/list.
type SessionInfo struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

type ListSessionsResponse struct {
	Sessions   []SessionInfo `json:"sessions"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

type SetSessionModeRequest struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

// SetSessionConfigOptionRequest is the params of session/set_config_option.
// Value is a string for select options, a bool when Type is "boolean".
type SetSessionConfigOptionRequest struct {
	SessionID string          `json:"sessionId"`
	ConfigID  string          `json:"configId"`
	Type      string          `json:"type,omitempty"`
	Value     json.RawMessage `json:"value"`
}

// SetSessionConfigOptionResponse carries the complete option list.
type SetSessionConfigOptionResponse = ConfigOptionUpdate

type SessionConfigSelectOption struct {
	Value       string `json:"value"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type SessionConfigSelectGroup struct {
	Group   string                      `json:"group"`
	Name    string                      `json:"name"`
	Options []SessionConfigSelectOption `json:"options"`
}

// SessionConfigOption is a select (Type "select") or boolean option.
type SessionConfigOption struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Category    string `json:"category,omitempty"`
	Type        string `json:"type"`
	// CurrentValue is the select value; BoolValue the boolean one.
	CurrentValue string
	BoolValue    bool
	Options      []SessionConfigSelectOption
	Groups       []SessionConfigSelectGroup
}

type configOptionWire struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	Category     string          `json:"category,omitempty"`
	Type         string          `json:"type"`
	CurrentValue json.RawMessage `json:"currentValue"`
	Options      json.RawMessage `json:"options,omitempty"`
}

// MarshalJSON writes the select or boolean variant.
func (o SessionConfigOption) MarshalJSON() ([]byte, error) {
	w := configOptionWire{ID: o.ID, Name: o.Name, Description: o.Description, Category: o.Category, Type: "select"}
	var value, options any = o.CurrentValue, nonNil(o.Options)
	switch {
	case o.Type == "boolean":
		w.Type, value, options = o.Type, o.BoolValue, nil
	case len(o.Groups) > 0:
		options = o.Groups
	}
	w.CurrentValue, _ = json.Marshal(value)
	if options != nil { // plain strings: they always marshal
		w.Options, _ = json.Marshal(options)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads either variant and grouped or flat options.
func (o *SessionConfigOption) UnmarshalJSON(b []byte) error {
	var w configOptionWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*o = SessionConfigOption{ID: w.ID, Name: w.Name, Description: w.Description, Category: w.Category, Type: w.Type}
	switch w.Type {
	case "boolean":
		return json.Unmarshal(w.CurrentValue, &o.BoolValue)
	case "select":
		if err := json.Unmarshal(w.CurrentValue, &o.CurrentValue); err != nil {
			return err
		}
		var probe []map[string]json.RawMessage
		if err := json.Unmarshal(w.Options, &probe); err != nil {
			return err
		}
		if len(probe) > 0 && probe[0]["group"] != nil {
			return json.Unmarshal(w.Options, &o.Groups)
		}
		return json.Unmarshal(w.Options, &o.Options)
	default:
		return fmt.Errorf("config option %q: unknown type %q", w.ID, w.Type)
	}
}

// Values lists every select value, across groups.
func (o SessionConfigOption) Values() []string {
	var out []string
	for _, v := range o.Options {
		out = append(out, v.Value)
	}
	for _, g := range o.Groups {
		for _, v := range g.Options {
			out = append(out, v.Value)
		}
	}
	return out
}

type PromptRequest struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
}

const (
	StopEndTurn         = "end_turn"
	StopMaxTokens       = "max_tokens"
	StopMaxTurnRequests = "max_turn_requests"
	StopRefusal         = "refusal"
	StopCancelled       = "cancelled"
)

type PromptResponse struct {
	StopReason string `json:"stopReason"`
	// Usage is the turn's tokens, summed over its model requests
	// (unstable: end-turn token usage); nil when the agent reported none.
	Usage *Usage `json:"usage,omitempty"`
	Meta  Meta   `json:"_meta,omitempty"`
}

// Usage is a prompt turn's token usage (unstable).
type Usage struct {
	TotalTokens       int64  `json:"totalTokens"`
	InputTokens       int64  `json:"inputTokens"`
	OutputTokens      int64  `json:"outputTokens"`
	ThoughtTokens     *int64 `json:"thoughtTokens,omitempty"`
	CachedReadTokens  *int64 `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens *int64 `json:"cachedWriteTokens,omitempty"`
}

// ResourceContents is an embedded resource: text or blob.
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// MarshalJSON keeps the required text or blob field.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	if r.Blob != "" {
		return json.Marshal(struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType,omitempty"`
			Blob     string `json:"blob"`
		}{r.URI, r.MimeType, r.Blob})
	}
	return json.Marshal(struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType,omitempty"`
		Text     string `json:"text"`
	}{r.URI, r.MimeType, r.Text})
}

const (
	BlockText         = "text"
	BlockImage        = "image"
	BlockAudio        = "audio"
	BlockResourceLink = "resource_link"
	BlockResource     = "resource"
)

// ContentBlock is the ContentBlock union, flattened; Type selects the fields.
type ContentBlock struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"`
	MimeType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Size        *int64            `json:"size,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
	Annotations json.RawMessage   `json:"annotations,omitempty"`
}

func TextBlock(s string) ContentBlock { return ContentBlock{Type: BlockText, Text: s} }

type contentBlockAlias ContentBlock

// MarshalJSON writes required fields of each variant even when empty.
func (c ContentBlock) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case BlockText:
		return json.Marshal(&struct {
			Type        string          `json:"type"`
			Text        string          `json:"text"`
			Annotations json.RawMessage `json:"annotations,omitempty"`
		}{c.Type, c.Text, c.Annotations})
	case BlockResourceLink:
		return json.Marshal(struct {
			Type string `json:"type"`
			URI  string `json:"uri"`
			Name string `json:"name"`
			contentBlockAlias
		}{c.Type, c.URI, c.Name, contentBlockAlias{MimeType: c.MimeType, Title: c.Title, Description: c.Description, Size: c.Size, Annotations: c.Annotations}})
	}
	return json.Marshal(contentBlockAlias(c))
}

// UnmarshalJSON rejects unknown block types and missing required fields.
func (c *ContentBlock) UnmarshalJSON(b []byte) error {
	var a contentBlockAlias
	err := json.Unmarshal(b, &a)
	if *c = ContentBlock(a); err != nil { // what it read too, for a reader that takes the rest (a transcript's export)
		return err
	}
	switch c.Type {
	case BlockText:
		if !hasKey(b, "text") {
			return fmt.Errorf("text block without text")
		}
	case BlockImage, BlockAudio:
		if c.Data == "" || c.MimeType == "" {
			return fmt.Errorf("%s block needs data and mimeType", c.Type)
		}
	case BlockResourceLink:
		if c.URI == "" {
			return fmt.Errorf("resource_link block needs uri")
		}
	case BlockResource:
		if c.Resource == nil {
			return fmt.Errorf("resource block needs resource")
		}
	default:
		return fmt.Errorf("unknown content block type %q", c.Type)
	}
	return nil
}

func hasKey(b []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// ContentChunk is a streamed piece of a user, agent or thought message.
type ContentChunk struct {
	Content   ContentBlock `json:"content"`
	MessageID string       `json:"messageId,omitempty"`
}

// ToolCallLocation is a file (absolute path) a tool touches.
type ToolCallLocation struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// ToolCallContent is the union content | diff | terminal.
type ToolCallContent struct {
	Type       string        `json:"type"`
	Content    *ContentBlock `json:"content,omitempty"`
	Path       string        `json:"path,omitempty"`
	OldText    *string       `json:"oldText,omitempty"`
	NewText    string        `json:"newText,omitempty"`
	TerminalID string        `json:"terminalId,omitempty"`
}

type toolCallContentAlias ToolCallContent

// MarshalJSON writes exactly the fields of the variant.
func (t ToolCallContent) MarshalJSON() ([]byte, error) {
	switch t.Type {
	case "diff":
		return json.Marshal(struct {
			Type    string  `json:"type"`
			Path    string  `json:"path"`
			OldText *string `json:"oldText"`
			NewText string  `json:"newText"`
		}{t.Type, t.Path, t.OldText, t.NewText})
	case "terminal":
		return json.Marshal(struct {
			Type       string `json:"type"`
			TerminalID string `json:"terminalId"`
		}{t.Type, t.TerminalID})
	case "content":
		c := ContentBlock{Type: BlockText}
		if t.Content != nil {
			c = *t.Content
		}
		return json.Marshal(struct {
			Type    string       `json:"type"`
			Content ContentBlock `json:"content"`
		}{t.Type, c})
	}
	return nil, fmt.Errorf("unknown tool call content type %q", t.Type)
}

// UnmarshalJSON reads any variant, rejecting unknown types.
func (t *ToolCallContent) UnmarshalJSON(b []byte) error {
	var a toolCallContentAlias
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if !slices.Contains([]string{"content", "diff", "terminal"}, a.Type) {
		return fmt.Errorf("unknown tool call content type %q", a.Type)
	}
	*t = ToolCallContent(a)
	return nil
}

// ToolCall is a tool_call update (and the shape of a full description).
type ToolCall struct {
	ToolCallID string             `json:"toolCallId"`
	Title      string             `json:"title"`
	Name       string             `json:"name,omitempty"`
	Kind       string             `json:"kind,omitempty"`
	Status     string             `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
}

// ToolCallUpdate changes a tool call; only set fields are sent. A non-nil
// empty Content or Locations clears the collection.
type ToolCallUpdate struct {
	ToolCallID string             `json:"toolCallId"`
	Title      string             `json:"title,omitempty"`
	Name       string             `json:"name,omitempty"`
	Kind       string             `json:"kind,omitempty"`
	Status     string             `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
}

type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// Plan is the complete current plan.
type Plan struct {
	Entries []PlanEntry `json:"entries"`
}

type AvailableCommandInput struct {
	Hint string `json:"hint"`
}

// AvailableCommand is one slash command.
type AvailableCommand struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Input       *AvailableCommandInput `json:"input,omitempty"`
}

// AvailableCommandsUpdate replaces the command list.
type AvailableCommandsUpdate struct {
	AvailableCommands []AvailableCommand `json:"availableCommands"`
}

type CurrentModeUpdate struct {
	CurrentModeID string `json:"currentModeId"`
}

// ConfigOptionUpdate carries the complete option list.
type ConfigOptionUpdate struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
}

type SessionInfoUpdate struct {
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

// Cost is a cumulative cost.
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

type UsageUpdate struct {
	Used uint64 `json:"used"`
	Size uint64 `json:"size"`
	Cost *Cost  `json:"cost,omitempty"`
}

// SessionUpdate kinds (the sessionUpdate discriminator).
const (
	UpdateUserMessageChunk  = "user_message_chunk"
	UpdateAgentMessageChunk = "agent_message_chunk"
	UpdateAgentThoughtChunk = "agent_thought_chunk"
	UpdateToolCall          = "tool_call"
	UpdateToolCallUpdate    = "tool_call_update"
	UpdatePlan              = "plan"
	UpdateAvailableCommands = "available_commands_update"
	UpdateCurrentMode       = "current_mode_update"
	UpdateConfigOption      = "config_option_update"
	UpdateSessionInfo       = "session_info_update"
	UpdateUsage             = "usage_update"
	UpdateCompaction        = "compaction_update"
)

// SessionUpdate is the union of update variants; exactly one field is set.
type SessionUpdate struct {
	UserMessageChunk  *ContentChunk
	AgentMessageChunk *ContentChunk
	AgentThoughtChunk *ContentChunk
	ToolCall          *ToolCall
	ToolCallUpdate    *ToolCallUpdate
	Plan              *Plan
	AvailableCommands *AvailableCommandsUpdate
	CurrentMode       *CurrentModeUpdate
	ConfigOption      *ConfigOptionUpdate
	SessionInfo       *SessionInfoUpdate
	Usage             *UsageUpdate
	Compaction        *CompactionUpdate
}

// CompactionUpdate reports a context compaction (only to clients that
// advertised session.compaction); later updates with the same ID patch it.
type CompactionUpdate struct {
	CompactionID string         `json:"compactionId"`
	Status       string         `json:"status"` // in_progress | completed | failed | cancelled
	Summary      []ContentBlock `json:"summary,omitempty"`
	Error        string         `json:"error,omitempty"`
}

// updateKinds are the discriminators of SessionUpdate's fields, in order.
var updateKinds = []string{UpdateUserMessageChunk, UpdateAgentMessageChunk, UpdateAgentThoughtChunk, UpdateToolCall,
	UpdateToolCallUpdate, UpdatePlan, UpdateAvailableCommands, UpdateCurrentMode, UpdateConfigOption, UpdateSessionInfo,
	UpdateUsage, UpdateCompaction}

// Kind returns the discriminator of the set variant ("" if none).
func (u SessionUpdate) Kind() string {
	v := reflect.ValueOf(u)
	for i, kind := range updateKinds {
		if !v.Field(i).IsNil() {
			return kind
		}
	}
	return ""
}

// MarshalJSON writes the variant's fields after "sessionUpdate", its
// required lists as [] when empty.
func (u SessionUpdate) MarshalJSON() ([]byte, error) {
	kind := u.Kind()
	var v any
	switch {
	case kind == "":
		return nil, fmt.Errorf("empty session update")
	case u.Plan != nil:
		v = Plan{Entries: nonNil(u.Plan.Entries)}
	case u.AvailableCommands != nil:
		v = AvailableCommandsUpdate{AvailableCommands: nonNil(u.AvailableCommands.AvailableCommands)}
	case u.ConfigOption != nil:
		v = ConfigOptionUpdate{ConfigOptions: nonNil(u.ConfigOption.ConfigOptions)}
	default:
		v = reflect.ValueOf(u).Field(slices.Index(updateKinds, kind)).Interface()
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := append(append(append(make([]byte, 0, len(body)+len(kind)+20), `{"sessionUpdate":"`...), kind...), '"')
	if len(body) > 2 { // not {}
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

// UnmarshalJSON picks the variant by "sessionUpdate".
func (u *SessionUpdate) UnmarshalJSON(b []byte) error {
	var tag struct {
		SessionUpdate string `json:"sessionUpdate"`
	}
	if err := json.Unmarshal(b, &tag); err != nil {
		return err
	}
	*u = SessionUpdate{}
	i := slices.Index(updateKinds, tag.SessionUpdate)
	if i < 0 {
		return fmt.Errorf("%w: %q", ErrUnknownUpdate, tag.SessionUpdate)
	}
	f := reflect.ValueOf(u).Elem().Field(i)
	f.Set(reflect.New(f.Type().Elem()))
	return json.Unmarshal(b, f.Interface())
}

// SessionNotification is the params of session/update.
type SessionNotification struct {
	SessionID string        `json:"sessionId"`
	Update    SessionUpdate `json:"update"`
}

type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

type RequestPermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCallUpdate     `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

// RequestPermissionOutcome is {"outcome":"cancelled"} or
// {"outcome":"selected","optionId":...}.
type RequestPermissionOutcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
}

// UnmarshalJSON validates the discriminator.
func (o *RequestPermissionOutcome) UnmarshalJSON(b []byte) error {
	type alias RequestPermissionOutcome
	var a alias
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if a.Outcome != "cancelled" && (a.Outcome != "selected" || a.OptionID == "") {
		return fmt.Errorf("invalid permission outcome %q", a.Outcome)
	}
	*o = RequestPermissionOutcome(a)
	return nil
}

type RequestPermissionResponse struct {
	Outcome RequestPermissionOutcome `json:"outcome"`
}

type ReadTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line,omitempty"`
	Limit     *int   `json:"limit,omitempty"`
}

type ReadTextFileResponse struct {
	Content string `json:"content"`
}

type WriteTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}

type CreateTerminalRequest struct {
	SessionID       string        `json:"sessionId"`
	Command         string        `json:"command"`
	Args            []string      `json:"args,omitempty"`
	Env             []EnvVariable `json:"env,omitempty"`
	Cwd             string        `json:"cwd,omitempty"`
	OutputByteLimit *uint64       `json:"outputByteLimit,omitempty"`
}

type CreateTerminalResponse struct {
	TerminalID string `json:"terminalId"`
}

// TerminalRequest is the params of terminal/output, wait_for_exit, kill, release.
type TerminalRequest struct {
	SessionID  string `json:"sessionId"`
	TerminalID string `json:"terminalId"`
}

type TerminalExitStatus struct {
	ExitCode *uint32 `json:"exitCode"`
	Signal   *string `json:"signal"`
}

type TerminalOutputResponse struct {
	Output     string              `json:"output"`
	Truncated  bool                `json:"truncated"`
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
}

type WaitForTerminalExitResponse = TerminalExitStatus

// JSON-RPC and ACP error codes.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeAuthRequired     = -32000
	CodeResourceNotFound = -32002
)
