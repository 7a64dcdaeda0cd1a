package claude

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// ClaudeSourceCanUseTool is the Source of permission events.
const ClaudeSourceCanUseTool = "claude:control_request/can_use_tool"

// ClaudeDecoder decodes one stream of Claude Code's `--output-format stream-json` lines,
// with or without `--include-partial-messages`. It is not safe for concurrent use.
type ClaudeDecoder struct {
	blocks   map[claudeBlockKey]*claudeBlock
	streamed map[string]bool              // message ids whose text arrived as deltas
	tools    map[string]*claudeToolRecord // tool_use id -> what was emitted
	msgID    map[string]string            // parent tool id -> current streamed message id
	request  map[string]*claudeUsage      // parent tool id -> message_start's usage
	tasks    []*claudeTask                // task list built from TaskCreate/TaskUpdate/TaskList
	// unclaimed holds text streamed without a known message id (qodercli sends no
	// message_start); the assistant block that repeats it claims it.
	unclaimed []claudeUnclaimed
	CLI       string // the program named in error messages; "" means claude
	session   string
	model     string
	commands  string
	// apiError is the "error" kind (authentication_failed, rate_limit, ...) of an
	// is_api_error_message line: its result line only carries the text.
	apiError string
	compacts int     // compact_boundary records seen, for compaction IDs
	cost     float64 // the last result's total_cost_usd
	start    float64 // the running total its cost counted from
	Version  string  // the CLI version from the last system/init
	// isolated: a subagent was started in a directory of its own (isolation, cwd), whose
	// requests name no directory.
	isolated bool
	// Control receives the control records that are not events: responses to the client's
	// own requests and requests other than can_use_tool. NewClaudeDecoder's drops them.
	Control func(ClaudeControl)
}

// ClaudeControl is one control record for the adapter, never an event.
type ClaudeControl struct {
	Request  *ClaudeControlRequest
	Response *ClaudeControlResponse
	// Lifecycle is where a user message sent with a uuid stands ("queued", "started",
	// "completed", "cancelled").
	Lifecycle *ClaudeLifecycle
}

// ClaudeControlResponse is claude's answer to a control request hub sent.
type ClaudeControlResponse struct {
	Subtype   string          `json:"subtype"` // "success" or "error"
	RequestID string          `json:"request_id"`
	Error     string          `json:"error"`
	Response  json.RawMessage `json:"response"`
}

type ClaudeLifecycle struct {
	Command, State string
}

type claudeBlockKey struct {
	parent string
	index  int
}

type claudeBlock struct {
	kind  string // text | thinking | tool_use | other
	id    string
	name  string
	input []byte
}

type claudeToolRecord struct {
	name string
	plan bool // TodoWrite and task tools: shown as a plan, their results are not tool updates
	edit bool
}

// NewClaudeDecoder returns a decoder for one stream.
func NewClaudeDecoder() *ClaudeDecoder {
	return &ClaudeDecoder{blocks: map[claudeBlockKey]*claudeBlock{}, streamed: map[string]bool{},
		tools: map[string]*claudeToolRecord{}, msgID: map[string]string{}, request: map[string]*claudeUsage{}, Control: func(ClaudeControl) {}}
}

// claudeLine is the union of every record shape the decoder reads.
type claudeLine struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	SessionID       string          `json:"session_id"`
	ParentToolUseID string          `json:"parent_tool_use_id"` // null: ""
	Model           string          `json:"model"`
	SlashCommands   []string        `json:"slash_commands"`
	Version         string          `json:"claude_code_version"`
	CommandUUID     string          `json:"command_uuid"`
	State           string          `json:"state"`
	Event           json.RawMessage `json:"event"`
	APIMessageID    string          `json:"api_message_id"`
	Message         json.RawMessage `json:"message"`
	IsAPIError      bool            `json:"is_api_error_message"`
	ToolUseResult   json.RawMessage `json:"tool_use_result"`
	IsError         bool            `json:"is_error"`
	Result          string          `json:"result"`
	StopReason      string          `json:"stop_reason"`
	TerminalReason  string          `json:"terminal_reason"`
	TotalCostUSD    *float64        `json:"total_cost_usd"`
	Usage           *claudeUsage    `json:"usage"`
	ModelUsage      map[string]struct {
		ContextWindow int64 `json:"contextWindow"`
	} `json:"modelUsage"`
	Errors         []string        `json:"errors"`
	APIErrorStatus int             `json:"api_error_status"`
	Attempt        int             `json:"attempt"`
	MaxRetries     int             `json:"max_retries"`
	ErrorStatus    int             `json:"error_status"`
	Error          json.RawMessage `json:"error"`
	RateLimitInfo  *struct {
		Status        string `json:"status"`
		RateLimitType string `json:"rateLimitType"`
	} `json:"rate_limit_info"`

	StructuredOutput json.RawMessage       `json:"structured_output"` // a result's answer to --json-schema
	Response         ClaudeControlResponse `json:"response"`          // a control_response's
	RequestID        string                `json:"request_id"`        // a control_request's
	Request          ClaudeControlSubject  `json:"request"`
}

type claudeUsage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
	OutputDetails       *struct {
		ThinkingTokens int64 `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

func (d *ClaudeDecoder) Decode(line []byte) []adapters.Event {
	return adapters.DecodeJSON(line, "claude:malformed", d.line)
}

func (d *ClaudeDecoder) line(l *claudeLine, line []byte) []adapters.Event {
	switch l.Type {
	case "system":
		return d.system(l, line)
	case "stream_event":
		return d.streamEvent(l, line)
	case "assistant":
		return d.assistant(l, line)
	case "user":
		return d.user(l)
	case "result":
		return d.result(l)
	case "control_request":
		return d.controlRequest(l, line)
	case "control_response":
		d.Control(ClaudeControl{Response: &l.Response})
		return nil
	case "rate_limit_event":
		return d.rateLimit(l, line)
	case "command_lifecycle":
		d.Control(ClaudeControl{Lifecycle: &ClaudeLifecycle{Command: l.CommandUUID, State: l.State}})
		return nil
	}
	return []adapters.Event{adapters.RawEvent("claude:"+l.Type, line)}
}

func (d *ClaudeDecoder) system(l *claudeLine, line []byte) []adapters.Event {
	switch l.Subtype {
	case "init":
		return d.init(l)
	case "status", "thinking_tokens":
		return nil
	case "api_retry":
		return []adapters.Event{{Type: adapters.EventError, Error: adapters.RetryError(d.cliName(), l.ErrorStatus,
			strconv.Itoa(l.Attempt)+" of "+strconv.Itoa(l.MaxRetries), claudeErrorText(l.Error))}}
	case "compact_boundary":
		d.compacts++
		return []adapters.Event{{Type: adapters.EventCompaction, Compaction: &adapters.Compaction{
			ID: "claude-compaction-" + strconv.Itoa(d.compacts), Status: "completed"}}}
	}
	return []adapters.Event{adapters.RawEvent("claude:system/"+l.Subtype, line)}
}

func (d *ClaudeDecoder) init(l *claudeLine) []adapters.Event {
	var out []adapters.Event
	d.Version = cmp.Or(l.Version, d.Version)
	if l.SessionID != d.session || l.Model != d.model {
		d.session, d.model = l.SessionID, l.Model
		out = append(out, adapters.Event{Type: adapters.EventSessionInfo,
			Session: &adapters.SessionInfo{AgentSessionID: l.SessionID, Model: l.Model}})
	}
	if key := strings.Join(l.SlashCommands, "\x00"); key != d.commands && len(l.SlashCommands) > 0 {
		d.commands = key
		cmds := make([]adapters.Command, 0, len(l.SlashCommands))
		for _, c := range l.SlashCommands {
			cmds = append(cmds, adapters.Command{Name: c})
		}
		out = append(out, adapters.Event{Type: adapters.EventCommands, Commands: cmds})
	}
	return out
}

func (d *ClaudeDecoder) rateLimit(l *claudeLine, line []byte) []adapters.Event {
	if l.RateLimitInfo == nil || l.RateLimitInfo.Status != "rejected" {
		return []adapters.Event{adapters.RawEvent("claude:rate_limit_event", line)}
	}
	return []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{
		Message: d.cliName() + ": usage limit reached (" + l.RateLimitInfo.RateLimitType + "); try again after it resets",
		Code:    adapters.CodeRateLimit}}}
}

// claudeErrorText renders an "error" field that may be a string or object.
func claudeErrorText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if adapters.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = adapters.Unmarshal(raw, &o) // a list or a number is shown as it is
	return cmp.Or(o.Error.Message, o.Message, string(raw))
}

func (d *ClaudeDecoder) cliName() string { return cmp.Or(d.CLI, "claude") }
