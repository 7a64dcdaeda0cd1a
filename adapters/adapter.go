package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/hubdev/hub/internal/config"
)

// Sentinel errors shared by all adapters: wrap them with %w and context.
var (
	ErrNotInstalled     = errors.New("agent not installed")
	ErrNotAuthenticated = errors.New("agent not authenticated")
	ErrBusy             = errors.New("session is busy with another prompt")
	ErrClosed           = errors.New("session closed")
	ErrUnsupported      = errors.New("not supported by this agent")
	ErrUnknownAgent     = errors.New("unknown agent")
	// ErrNeedsRestart: the front end restarts the agent, resuming its session, to apply it.
	ErrNeedsRestart = errors.New("restart the agent to apply this change")
)

// Adapter starts sessions with one kind of agent.
type Adapter interface {
	Name() string // the registry key, e.g. "claude"
	Capabilities() Capabilities
	// Start opens a new session, or resumes one when opts.ResumeID is set.
	Start(ctx context.Context, opts SessionOptions) (Session, error)
}

// Session is one running agent and the conversation it keeps under its own id. hub's
// session (package conversation) may go through several, one per start or agent.
type Session interface {
	ID() string // the agent's own session id ("" until the agent reports it)
	// Prompt runs one user turn and returns when it has ended. emit gets the turn's
	// events in order, on the caller's goroutine; the end of the turn is the return
	// value, never an event. A turn that fails returns a *TurnError after its events;
	// one that cannot start returns its cause (ErrBusy while another turn runs). Ending
	// ctx cancels the turn, which returns StopCancelled within
	// SessionOptions.CancelGrace, or ErrCancelTimeout (then Close the session).
	Prompt(ctx context.Context, prompt []Content, emit func(Event)) (StopReason, error)
	// Close cancels any turn and releases the agent process. Idempotent.
	Close() error
}

// Configurable is implemented by sessions whose model or mode can change between turns.
type Configurable interface {
	SetModel(ctx context.Context, model string) error
	SetMode(ctx context.Context, mode string) error
}

// Exiter is implemented by sessions whose agent is a process: Exit describes its end (a
// CodeCrash error with exit status and stderr tail) once it is gone, waiting briefly
// only once its output closed; nil at once while it runs with its output open. A prompt
// that could not reach the agent is reported with it.
type Exiter interface {
	Exit() *ErrorInfo
}

// Capabilities describes an adapter honestly; the ACP server advertises only what every
// path supports.
type Capabilities struct {
	Images          bool `json:"images"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
	Resume          bool `json:"resume"`       // can continue an agent session by id
	Fork            bool `json:"fork"`         // can continue a copy of one (SessionOptions.Fork)
	Permissions     bool `json:"permissions"`  // tool permissions reach the editor
	MCP             bool `json:"mcp"`          // accepts stdio MCP servers
	MCPHTTP         bool `json:"mcpHttp"`      // accepts HTTP MCP servers
	UsesEditorFS    bool `json:"usesEditorFs"` // calls EditorClient fs methods when available
	// Transcript, DelegateTool and Hooks are the native loop's: it keeps its own hub
	// transcript (front ends write no audit copy), offers SessionOptions.Delegate as a
	// built-in tool (others get hub's MCP server), and runs hub's command hooks itself,
	// gating its tools (front ends observe the others' streams).
	Transcript   bool     `json:"transcript,omitempty"`
	DelegateTool bool     `json:"delegateTool,omitempty"`
	Hooks        bool     `json:"hooks,omitempty"`
	Models       []Option `json:"models,omitempty"`
	Modes        []Option `json:"modes,omitempty"`
	DefaultModel string   `json:"defaultModel,omitempty"`
	DefaultMode  string   `json:"defaultMode,omitempty"`
	// ModesLater says the agent tells its modes when a session starts (an ACP agent
	// before its first), and that start refuses a mode it lacks.
	ModesLater bool `json:"modesLater,omitempty"`
	// Instructions says the agent takes SessionOptions.Instructions through a
	// system-level channel (system prompt, developer instructions, ahead of its first
	// prompt), not as the user's words.
	Instructions bool `json:"instructions,omitempty"`
	// SystemPrompt says SessionOptions.SystemPrompt can replace the agent's own.
	SystemPrompt bool `json:"systemPrompt,omitempty"`
	ReportsCost  bool `json:"reportsCost,omitempty"` // in Usage.CostUSD
	// OutputSchema says the agent's model is held to SessionOptions.OutputSchema for its
	// final answer (codex outputSchema, claude --json-schema, response_format).
	OutputSchema bool `json:"outputSchema,omitempty"`
	// TurnBudget says the agent stops a turn itself after SessionOptions.MaxTurns model
	// requests (stop reason max_turn_requests).
	TurnBudget     bool   `json:"turnBudget,omitempty"`
	Skills         string `json:"skills,omitempty"`         // "native", "prompt" or "file": how skills reach it
	TestedVersions string `json:"testedVersions,omitempty"` // the CLI versions the adapter was tested with
	Notes          string `json:"notes,omitempty"`          // limits, e.g. "pi has no permission hook"
}

// Option is one choice in a select (model or mode).
type Option struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// SessionOptions configures Start.
type SessionOptions struct {
	Cwd        string      // absolute working directory
	AddDirs    []string    // more workspace roots (ACP additionalDirectories), used as Cwd is
	MCPServers []MCPServer // editor-provided MCP servers
	ResumeID   string      // agent session id to resume; "" for a new session
	// Fork continues a copy of ResumeID's session under a new id, leaving the original as
	// it was (Capabilities.Fork).
	Fork    bool
	Model   string
	Mode    string
	Options map[string]string // the session's other options (see Surface) by ID, e.g. "effort"
	Env     map[string]string // extra environment for the agent process
	// Editor gives access to the editor's fs/terminal methods; nil outside ACP. Check its
	// capability methods before calling.
	Editor EditorClient
	// Instructions is extra system-level text (e.g. skills) the adapter delivers through
	// its best channel.
	Instructions string
	// SystemPrompt replaces the agent's own (Capabilities.SystemPrompt); Instructions
	// still follow it.
	SystemPrompt string
	// OutputSchema is the JSON Schema (draft 2020-12) the final answer must match, for
	// an agent with Capabilities.OutputSchema.
	OutputSchema json.RawMessage
	// MaxTurns, when positive, bounds a turn's model requests (Capabilities.TurnBudget).
	MaxTurns  int
	SkillDirs []string // skill folders the adapter may expose natively
	// CancelGrace bounds how long a cancelled turn may take to end before the adapter
	// ends it itself; the front end sets its own, so both give up together. 0: the
	// adapter's default.
	CancelGrace time.Duration
	Permission  PermissionFunc // see TurnRules
	// Hooks, when not nil, are the hooks of the session's own configuration, for an agent
	// that runs hooks itself (Capabilities.Hooks); nil keeps those it was registered with.
	Hooks map[string][]config.HookConfig
	Ask   AskFunc // see TurnRules
	// Access bounds what the agent may do without asking. An agent whose own sandbox lets
	// some tools run unasked (codex writes in the workspace) must narrow that sandbox to
	// it, since no permission request would reach the front end.
	Access Access
	// Delegate runs a turn of another agent for this session's agent (hub's delegation),
	// with the root session's permissions; see Capabilities.DelegateTool.
	Delegate       DelegateFunc
	DelegateAgents []string // the agents Delegate may run, for the tool's description
	// Tools narrows the tools the agent may use (a persona's tools): the native loop
	// offers only those, claude gets --allowed-tools/--disallowed-tools, codex a
	// read-only sandbox when nothing may write.
	Tools *ToolFilter
}

// DelegateRequest is one turn the session's agent hands to another agent.
type DelegateRequest struct {
	Agent   string        `json:"agent"` // may be empty when Session is set
	Prompt  string        `json:"prompt"`
	Session string        `json:"session,omitempty"` // follows up an earlier delegate conversation
	Cwd     string        `json:"cwd,omitempty"`
	Model   string        `json:"model,omitempty"`
	Mode    string        `json:"mode,omitempty"`
	Timeout time.Duration `json:"-"`
}

// DelegateFunc runs a delegate turn and returns what the calling agent reads: the
// delegate's answer and a summary of its turn.
type DelegateFunc func(ctx context.Context, r DelegateRequest) (string, error)

// Access is the widest tool access a session may use without asking.
type Access string

const (
	// AccessAgentDefault leaves the agent's own sandbox and approval rules.
	AccessAgentDefault Access = ""
	// AccessAskFirst means nothing writes or runs a command unasked: it is asked or refused.
	AccessAskFirst Access = "ask-first"
)

type ContentType string

const (
	ContentText         ContentType = "text"
	ContentImage        ContentType = "image"
	ContentAudio        ContentType = "audio"
	ContentResourceLink ContentType = "resource_link"
	ContentResource     ContentType = "resource"
)

// Content is one block of a user prompt.
type Content struct {
	Type     ContentType `json:"type"`
	Text     string      `json:"text,omitempty"` // text; embedded resource text
	Data     string      `json:"data,omitempty"` // base64 image/audio/blob
	MimeType string      `json:"mimeType,omitempty"`
	URI      string      `json:"uri,omitempty"` // resource_link, resource
	Name     string      `json:"name,omitempty"`
}

// MCPServer is an MCP server the editor wants the agent to use.
type MCPServer struct {
	Name    string            `json:"name"`
	Type    string            `json:"type"` // "stdio", "http" or "sse"
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// EditorClient is the editor side of an ACP connection.
type EditorClient interface {
	CanReadFile() bool
	CanWriteFile() bool
	CanTerminal() bool
	ReadTextFile(ctx context.Context, path string, line, limit int) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
	// Call forwards any client method (fs/*, terminal/*) verbatim.
	Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

func TextPrompt(s string) []Content { return []Content{{Type: ContentText, Text: s}} }

// PromptText is prompt as plain text, for agents that accept only that.
func PromptText(prompt []Content) string {
	var parts []string
	for _, c := range prompt {
		switch c.Type {
		case ContentText:
			parts = append(parts, c.Text)
		case ContentResourceLink:
			parts = append(parts, "@"+c.URI)
		case ContentResource:
			parts = append(parts, "<resource uri=\""+c.URI+"\">\n"+c.Text+"\n</resource>")
		}
	}
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), "\n")
}
