package codex

import (
	"encoding/json"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// CodexExecDecoder decodes `codex exec --json` lines, app-server's records
// under other names, through CodexDecoder. Reuse one across the processes of
// a thread (exec resume): exec reports cumulative usage.
type CodexExecDecoder struct {
	app   *CodexDecoder
	total codexTokens
}

// codexExecUsage is codexTokens as exec names them (it converts to one).
type codexExecUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

// codexExecItem is an app-server item under exec's names: these members
// are exec's own (its changes passed on as they are).
type codexExecItem struct {
	codexItem
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Changes          json.RawMessage `json:"changes"`
	Message          string          `json:"message"`
	Items            []codexPlanStep `json:"items"`
}

type codexExecRecord struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     *codexExecItem  `json:"item"`
	Usage    *codexExecUsage `json:"usage"`
	Message  string          `json:"message"`
	Error    struct {
		Message string `json:"message"`
	} `json:"error"`
}

func NewCodexExecDecoder() *CodexExecDecoder {
	return &CodexExecDecoder{app: NewCodexDecoder()}
}

func (d *CodexExecDecoder) Decode(line []byte) []adapters.Event {
	return adapters.DecodeJSON(line, "codexexec:invalid", d.record)
}

// record maps one record. A top-level error "Reconnecting... n/m (...)" is
// a retry codex makes on its own (real codex 0.169: "Reconnecting... 1/2
// (exceeded retry limit, last status: 429 Too Many Requests)").
func (d *CodexExecDecoder) record(r *codexExecRecord, line []byte) []adapters.Event {
	switch r.Type {
	case "thread.started":
		return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: r.ThreadID}}}
	case "turn.started":
		// each process numbers its items from item_0, and a cancelled one
		// left its tool items running and its errors held
		clear(d.app.started)
		d.app.pending, d.app.retried = nil, nil
		return nil
	case "item.started", "item.updated", "item.completed":
		if r.Item == nil {
			break
		}
		if evs, ok := d.item(r.Item, r.Type); ok {
			return evs
		}
	case "turn.completed":
		return d.app.endTurn("completed", nil, d.usage(r.Usage)...)
	case "turn.failed":
		var failure *adapters.ErrorInfo
		if r.Error.Message != "" {
			failure = new(codexExecError(r.Error.Message))
		}
		return d.app.endTurn("failed", failure)
	case "error":
		return d.app.hold(codexExecError(r.Message), strings.HasPrefix(r.Message, "Reconnecting"))
	}
	return []adapters.Event{adapters.RawEvent("codexexec:"+r.Type, line)}
}

// codexExecError is exec's error message as the turn's failure (hold
// makes a retry's a notice): rate_limit when its cause is a 429.
func codexExecError(msg string) adapters.ErrorInfo {
	code := adapters.CodeProvider
	if strings.Contains(msg, "429") || strings.Contains(strings.ToLower(msg), "rate limit") {
		code = adapters.CodeRateLimit
	}
	return adapters.ErrorInfo{Message: adapters.FirstLine(msg), Code: code, Fatal: true}
}

// usage is the turn's share of the thread's cumulative usage u.
func (d *CodexExecDecoder) usage(u *codexExecUsage) []adapters.Event {
	if u == nil {
		return nil
	}
	total, prev := codexTokens(*u), d.total
	d.total = total
	if total.InputTokens < prev.InputTokens {
		prev = codexTokens{}
	}
	return []adapters.Event{{Type: adapters.EventUsage, Usage: codexSub(total, prev).usage()}}
}

func (d *CodexExecDecoder) item(it *codexExecItem, phase string) ([]adapters.Event, bool) {
	completed := phase == "item.completed"
	switch it.Type {
	case "file_change":
		return toolEvent(d.app.started, codexExecFileChange(it), completed), true
	case "error":
		if !completed {
			return nil, true
		}
		return []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: adapters.FirstLine(it.Message), Code: adapters.CodeWarning}}}, true
	case "todo_list":
		return codexPlanEvent(it.Items), true
	}
	ci := it.codexItem
	ci.Type = codexExecTypes[it.Type]
	if it.ExitCode != nil || it.AggregatedOutput != "" {
		ci.AggregatedOutput, ci.ExitCode = &it.AggregatedOutput, it.ExitCode
	}
	return d.app.itemEvents(ci, completed)
}

// codexExecTypes are app-server's names of the exec items decoded as its own.
var codexExecTypes = map[string]string{"agent_message": "agentMessage", "command_execution": "commandExecution",
	"mcp_tool_call": "mcpToolCall", "web_search": "webSearch", "reasoning": "reasoning"}

// codexExecFileChange is exec's file change, which names the files and
// their kind of change, not the diff.
func codexExecFileChange(it *codexExecItem) *adapters.ToolCall {
	var ch []codexChange
	_ = adapters.Unmarshal(it.Changes, &ch) // a malformed list keeps what encoding/json filled in
	t := &adapters.ToolCall{ID: it.ID, Status: codexStatuses[it.Status], Name: "apply_patch", Kind: adapters.KindEdit,
		Title: codexChangeTitle(ch), RawInput: adapters.RawOrNil(it.Changes)}
	for _, c := range ch {
		t.Locations = append(t.Locations, adapters.Location{Path: c.Path})
	}
	return t
}
