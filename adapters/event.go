// Package adapters defines the seam between hub's front ends (ACP server, CI runner) and
// the agents it drives: the normalized Event stream, the Adapter and Session interfaces
// every backend implements, and the registry of adapters by name.
package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
)

type EventType string

const (
	EventText        EventType = "text"         // assistant text delta
	EventThought     EventType = "thought"      // reasoning / thinking delta
	EventToolCall    EventType = "tool_call"    // a tool call started (full description)
	EventToolUpdate  EventType = "tool_update"  // a change to a started tool call
	EventPlan        EventType = "plan"         // the full, current plan
	EventPermission  EventType = "permission"   // the agent asks before a side effect
	EventUsage       EventType = "usage"        // token counts and cost
	EventSessionInfo EventType = "session_info" // agent session id, title, model
	EventCommands    EventType = "commands"     // slash commands the agent offers
	EventError       EventType = "error"        // a failure the user should read
	EventDone        EventType = "done"         // the turn ended; always the last event
	EventRaw         EventType = "raw"          // a downstream record hub does not understand
	EventCompaction  EventType = "compaction"   // the agent compacts its context
	EventDecision    EventType = "decision"     // hub decided whether a tool call may run (Decision)
	EventQuestion    EventType = "question"     // the agent asks the user something (QuestionRequest)
)

// Decision is one permission decision, whatever took it (By: the deny list, a rule, a
// grant, a hook, a skill, the user, --approve…), with the reason a user can read.
type Decision struct {
	ToolID  string   `json:"toolId"`
	Title   string   `json:"title,omitempty"`
	Kind    ToolKind `json:"kind,omitempty"`
	Allowed bool     `json:"allowed"`
	By      string   `json:"by"`
	Reason  string   `json:"reason,omitempty"`
	// Answer is set, with its event's Permission, when it answered an agent's request.
	Answer *PermissionDecision `json:"answer,omitempty"`
}

// StopReason says why a turn ended. Values match ACP's StopReason enum.
type StopReason string

const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	StopRefusal         StopReason = "refusal"
	StopCancelled       StopReason = "cancelled"
)

// Event is the one type every agent stream is normalized into. Exactly the
// fields that belong to Type are set.
type Event struct {
	Type EventType `json:"type"`

	Text      string `json:"text,omitempty"`      // EventText and EventThought delta
	MessageID string `json:"messageId,omitempty"` // groups deltas into one message, if the agent says

	// Tool is set for EventToolCall (complete) and EventToolUpdate (only the
	// fields that changed, plus ID).
	Tool *ToolCall `json:"tool,omitempty"`

	Plan       []PlanEntry        `json:"plan,omitempty"`
	Permission *PermissionRequest `json:"permission,omitempty"`
	Decision   *Decision          `json:"decision,omitempty"`
	Question   *QuestionRequest   `json:"question,omitempty"`
	Compaction *Compaction        `json:"compaction,omitempty"`
	Usage      *Usage             `json:"usage,omitempty"`
	Session    *SessionInfo       `json:"session,omitempty"`
	Commands   []Command          `json:"commands,omitempty"`
	Error      *ErrorInfo         `json:"error,omitempty"`

	StopReason StopReason `json:"stopReason,omitempty"` // EventDone

	// Raw carries the original record for EventRaw; Source names the wire
	// format and record type it came from (e.g. "claude:system/hook").
	Raw    json.RawMessage `json:"raw,omitempty"`
	Source string          `json:"source,omitempty"`
}

// Compaction is one context compaction; updates with the same ID patch it.
type Compaction struct {
	ID      string `json:"id"`
	Status  string `json:"status"` // in_progress | completed | failed | cancelled
	Summary string `json:"summary,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ToolKind matches ACP's ToolKind enum.
type ToolKind string

func (k ToolKind) ChangesFiles() bool { return k == KindEdit || k == KindDelete || k == KindMove }

const (
	KindRead       ToolKind = "read"
	KindEdit       ToolKind = "edit"
	KindDelete     ToolKind = "delete"
	KindMove       ToolKind = "move"
	KindSearch     ToolKind = "search"
	KindExecute    ToolKind = "execute"
	KindThink      ToolKind = "think"
	KindFetch      ToolKind = "fetch"
	KindSwitchMode ToolKind = "switch_mode"
	KindOther      ToolKind = "other"
)

// ToolStatus matches ACP's ToolCallStatus enum.
type ToolStatus string

const (
	StatusPending    ToolStatus = "pending"
	StatusInProgress ToolStatus = "in_progress"
	StatusCompleted  ToolStatus = "completed"
	StatusFailed     ToolStatus = "failed"
)

// ToolCall describes one tool invocation. In an EventToolUpdate only ID and
// the changed fields are set; Content and Locations replace earlier values.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name,omitempty"`
	Title     string          `json:"title,omitempty"`
	Kind      ToolKind        `json:"kind,omitempty"`
	Status    ToolStatus      `json:"status,omitempty"`
	Locations []Location      `json:"locations,omitempty"`
	Content   []ToolContent   `json:"content,omitempty"`
	RawInput  json.RawMessage `json:"rawInput,omitempty"`
	RawOutput json.RawMessage `json:"rawOutput,omitempty"`
	// Shell runs the call's command line, when the tool knows it (the native loop's
	// bash tool); unknown, hub reads a line as each shell it may run in would.
	Shell Shell `json:"-"`
	// Dirs is where the command may run when its input does not say and the agent's shell
	// keeps its directory between calls (set by the adapter that follows it).
	Dirs []string `json:"-"`
}

type Shell string

const (
	ShellUnknown    Shell = ""
	ShellSh         Shell = "sh"
	ShellPowerShell Shell = "powershell"
	ShellCmd        Shell = "cmd"
)

// Location is a file (absolute path) and optional 1-based line a tool touches.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

type ToolContentType string

const (
	ToolContentText     ToolContentType = "text"
	ToolContentImage    ToolContentType = "image"
	ToolContentDiff     ToolContentType = "diff"
	ToolContentTerminal ToolContentType = "terminal"
)

// ToolContent is output attached to a tool call.
type ToolContent struct {
	Type       ToolContentType `json:"type"`
	Text       string          `json:"text,omitempty"`
	MimeType   string          `json:"mimeType,omitempty"`
	Data       string          `json:"data,omitempty"` // base64 image data
	Path       string          `json:"path,omitempty"` // diff: absolute path
	OldText    *string         `json:"oldText,omitempty"`
	NewText    string          `json:"newText,omitempty"`
	TerminalID string          `json:"terminalId,omitempty"`
}

func EditDiff(path, old, new string) ToolContent {
	return ToolContent{Type: ToolContentDiff, Path: path, OldText: &old, NewText: new}
}

// MCPContent keeps the non-empty text and the image blocks of an MCP tool result's content
// (decoded into ToolContent, whose members are named alike), without other members.
func MCPContent(blocks []ToolContent) []ToolContent {
	var out []ToolContent
	for _, c := range blocks {
		switch {
		case c.Type == ToolContentText && c.Text != "":
			out = append(out, ToolContent{Type: c.Type, Text: c.Text})
		case c.Type == ToolContentImage:
			out = append(out, ToolContent{Type: c.Type, Data: c.Data, MimeType: c.MimeType})
		}
	}
	return out
}

type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"` // high | medium | low
	Status   string `json:"status"`   // pending | in_progress | completed
}

// Usage reports token counts; zero means unknown. CostUSD is nil when unknown.
type Usage struct {
	InputTokens      int64    `json:"inputTokens,omitempty"`
	OutputTokens     int64    `json:"outputTokens,omitempty"`
	CacheReadTokens  int64    `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int64    `json:"cacheWriteTokens,omitempty"`
	ThoughtTokens    int64    `json:"thoughtTokens,omitempty"`
	ContextUsed      int64    `json:"contextUsed,omitempty"`
	ContextSize      int64    `json:"contextSize,omitempty"`
	CostUSD          *float64 `json:"costUsd,omitempty"`
	// PerRequest says the counts are one model request's, not the turn's or session's so
	// far: a consumer sums them (the native loop).
	PerRequest bool `json:"-"`
}

type SessionInfo struct {
	AgentSessionID string `json:"agentSessionId,omitempty"` // pass back as SessionOptions.ResumeID
	Title          string `json:"title,omitempty"`
	Model          string `json:"model,omitempty"`
}

// Command is a slash command the agent offers.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputHint   string `json:"inputHint,omitempty"`
}

// ErrorInfo is a failure explained in one line. Fatal errors end the turn.
type ErrorInfo struct {
	Message string    `json:"message"` // one line the user can act on
	Code    ErrorCode `json:"code,omitempty"`
	Detail  string    `json:"detail,omitempty"` // e.g. the agent's last stderr lines
	Fatal   bool      `json:"fatal,omitempty"`
	Status  int       `json:"status,omitempty"` // the model service's HTTP status, if the agent says it
	// Retry marks the agent's notice that it retries a failed model call
	// (RetryError): Code says why, and it never fails a turn by itself.
	Retry bool `json:"retry,omitempty"`
}

// Failure is how a failed turn ends: its error, then done (end_turn).
func Failure(info *ErrorInfo) []Event {
	return []Event{{Type: EventError, Error: info}, {Type: EventDone, StopReason: StopEndTurn}}
}

// ErrorCode classifies an ErrorInfo for scripts (hub run's jsonl) and for
// the front ends, which map it to exit codes and JSON-RPC errors.
type ErrorCode string

const (
	CodeAuth         ErrorCode = "auth"          // not logged in, bad or missing key
	CodeRateLimit    ErrorCode = "rate_limit"    // rate limit or quota
	CodeProvider     ErrorCode = "provider"      // the model service failed
	CodeNetwork      ErrorCode = "network"       // the model service cannot be reached
	CodeContext      ErrorCode = "context"       // the context window is full
	CodeBudget       ErrorCode = "budget"        // a spending limit was reached
	CodeProtocol     ErrorCode = "protocol"      // the agent broke its own protocol
	CodeAgent        ErrorCode = "agent"         // the agent failed on its own
	CodeExtension    ErrorCode = "extension"     // an agent extension failed
	CodeWarning      ErrorCode = "warning"       // non-fatal notice
	CodeHook         ErrorCode = "hook"          // a hook blocked the prompt, or failed
	CodeNotInstalled ErrorCode = "not_installed" // the agent's program is missing
	CodeStart        ErrorCode = "start"         // the agent's program is there but did not start
	CodeUsage        ErrorCode = "usage"         // hub was asked for something impossible
	CodeCrash        ErrorCode = "crash"         // the agent process is gone: start the session again
)

// PermissionOptionKind matches ACP's PermissionOptionKind enum.
type PermissionOptionKind string

const (
	AllowOnce    PermissionOptionKind = "allow_once"
	AllowAlways  PermissionOptionKind = "allow_always"
	RejectOnce   PermissionOptionKind = "reject_once"
	RejectAlways PermissionOptionKind = "reject_always"
)

type PermissionOption struct {
	ID   string               `json:"id"`
	Name string               `json:"name"`
	Kind PermissionOptionKind `json:"kind"`
}

// PermissionDecision is the answer to a PermissionRequest. Cancelled means the turn was
// cancelled and the tool must not run.
type PermissionDecision struct {
	OptionID  string               `json:"optionId,omitempty"`
	Kind      PermissionOptionKind `json:"kind,omitempty"`
	Cancelled bool                 `json:"cancelled,omitempty"`
	// By and Reason say what decided and why, when hub's gate did (the native loop's
	// transcript records them).
	By, Reason string `json:"-"`
}

func (d PermissionDecision) Allowed() bool {
	return !d.Cancelled && (d.Kind == AllowOnce || d.Kind == AllowAlways)
}

// PermissionRequest asks the user before a tool runs. The consumer of the event must call
// Respond; only the first call counts.
type PermissionRequest struct {
	Tool    ToolCall           `json:"tool"`
	Options []PermissionOption `json:"options"`
	// Refusal is a refusal taken before the gate (a persona's deny rule), which the gate
	// reports as its decision. It can only narrow.
	Refusal *Refusal `json:"refusal,omitempty"`
	// MustAsk says why a persona's ask rule, or the doom loop check, asks every time.
	MustAsk string `json:"mustAsk,omitempty"`
	// Repeated marks the doom loop check's question (may a repeated call run again?):
	// where nobody can answer, the repetition stops, which refuses no permission.
	Repeated bool `json:"-"`
	// Unasked and Hook are the native loop's say after the gate's denies: a
	// read runs unasked if no rule decides; a hook refuses or allows.
	Unasked bool                                `json:"-"`
	Hook    func(ctx context.Context) *Decision `json:"-"`

	once     sync.Once
	decision chan PermissionDecision
	answered chan struct{} // closed by Respond
}

// Refusal is who refused a request before the gate, and why.
type Refusal struct {
	By     string `json:"by"`
	Reason string `json:"reason"`
}

func NewPermissionRequest(tool ToolCall, options []PermissionOption) *PermissionRequest {
	if len(options) == 0 {
		options = DefaultPermissionOptions()
	}
	return &PermissionRequest{Tool: tool, Options: options, decision: make(chan PermissionDecision, 1), answered: make(chan struct{})}
}

// DefaultPermissionOptions are the four ACP choices.
func DefaultPermissionOptions() []PermissionOption {
	return []PermissionOption{
		{ID: "allow_once", Name: "Allow once", Kind: AllowOnce},
		{ID: "allow_always", Name: "Always allow", Kind: AllowAlways},
		{ID: "reject_once", Name: "Reject", Kind: RejectOnce},
		{ID: "reject_always", Name: "Always reject", Kind: RejectAlways},
	}
}

// Respond delivers the decision; only the first call counts. If the option
// id is known its kind is filled in.
func (p *PermissionRequest) Respond(d PermissionDecision) {
	p.once.Do(func() {
		i := slices.IndexFunc(p.Options, func(o PermissionOption) bool { return o.ID == d.OptionID })
		if d.Kind == "" && d.OptionID != "" && i >= 0 {
			d.Kind = p.Options[i].Kind
		}
		p.decision <- d
		close(p.answered)
	})
}

func (p *PermissionRequest) Decision() <-chan PermissionDecision { return p.decision }

// OptionFor returns the first option of the given kind.
func (p *PermissionRequest) OptionFor(kind PermissionOptionKind) (PermissionOption, bool) {
	i := slices.IndexFunc(p.Options, func(o PermissionOption) bool { return o.Kind == kind })
	if i < 0 {
		return PermissionOption{}, false
	}
	return p.Options[i], true
}

// ErrCannotAsk means the front end has no way to put a question to the user (no
// elicitation, and it does not fit a permission choice); the adapter tells the agent.
var ErrCannotAsk = errors.New("the editor cannot show this question")

// Question is one question; ID keys its answer.
type Question struct {
	ID      string           `json:"id"`
	Header  string           `json:"header,omitempty"`
	Text    string           `json:"text"`
	Options []QuestionOption `json:"options,omitempty"` // none: free text
	Multi   bool             `json:"multi,omitempty"`   // several options may be chosen
	Secret  bool             `json:"secret,omitempty"`  // never asked through a form
}

type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// QuestionRequest is what the agent asks at once mid-turn (claude's AskUserQuestion, codex's
// request_user_input), about tool call ToolID; the consumer must Respond.
type QuestionRequest struct {
	ToolID    string     `json:"toolId,omitempty"`
	Questions []Question `json:"questions"`

	once     sync.Once
	answer   chan Answers
	answered chan struct{} // closed by Respond
}

// Answers is the user's reply: Values by question ID, or why there are none.
type Answers struct {
	Values    map[string][]string `json:"values,omitempty"`
	Declined  bool                `json:"declined,omitempty"`  // the user chose not to answer
	Cancelled bool                `json:"cancelled,omitempty"` // the turn was cancelled
	Err       error               `json:"-"`                   // the front end could not ask (ErrCannotAsk)
}

// AskFunc puts a question to the user; see TurnRules.Ask.
type AskFunc func(ctx context.Context, q *QuestionRequest) Answers

func NewQuestionRequest(toolID string, qs []Question) *QuestionRequest {
	return &QuestionRequest{ToolID: toolID, Questions: qs, answer: make(chan Answers, 1), answered: make(chan struct{})}
}

// Respond delivers the answers; only the first call counts.
func (q *QuestionRequest) Respond(a Answers) {
	q.once.Do(func() { q.answer <- a; close(q.answered) })
}

func (q *QuestionRequest) Answer() <-chan Answers { return q.answer }
