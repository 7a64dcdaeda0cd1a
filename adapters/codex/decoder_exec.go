package codex

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// CodexExecDecoder decodes `codex exec --json` lines. Reuse one decoder
// across the processes of one thread (exec resume) so cumulative usage is
// turned into per-turn usage. Not safe for concurrent use.
type CodexExecDecoder struct {
	items   *CodexDecoder // its items, read as app-server's
	total   codexTokens
	pending *adapters.ErrorInfo
}

// codexExecUsage is codexTokens as exec names them (it converts to one).
type codexExecUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

// codexExecItem is an app-server item under exec's names: the members
// named alike are codexItem's, these are exec's own (and its changes,
// passed on as they are).
type codexExecItem struct {
	codexItem
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Changes          json.RawMessage `json:"changes"`
	Message          string          `json:"message"`
	Items            json.RawMessage `json:"items"`
}

// NewCodexExecDecoder returns a decoder for `codex exec --json` output.
func NewCodexExecDecoder() *CodexExecDecoder {
	return &CodexExecDecoder{items: NewCodexDecoder()}
}

// Decode turns one line into zero or more events.
func (d *CodexExecDecoder) Decode(line []byte) []adapters.Event {
	return adapters.DecodeJSON(line, "codexexec:invalid", d.record)
}

// record maps one record.
func (d *CodexExecDecoder) record(r *codexExecRecord, line []byte) []adapters.Event {
	var evs []adapters.Event
	ok := true
	switch r.Type {
	case "thread.started":
		evs = []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: r.ThreadID}}}
	case "turn.started":
		clear(d.items.seen) // app-server's unannounced calls: none in exec
	case "item.started", "item.updated", "item.completed":
		if r.Item == nil {
			ok = false
			break
		}
		evs, ok = d.item(r.Item, r.Type)
	case "turn.completed":
		evs = d.turnCompleted(r.Usage)
	case "turn.failed":
		evs = d.turnFailed(r.Error.Message)
	case "error":
		evs = d.errorLine(r.Message)
	default:
		ok = false
	}
	if !ok {
		return []adapters.Event{adapters.RawEvent("codexexec:"+r.Type, line)}
	}
	return evs
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

// errorLine maps a top-level error record. "Reconnecting... n/m (...)" is a
// retry codex makes on its own: a non-fatal notice, rate_limit when the
// cause is a 429 (real codex 0.169: "Reconnecting... 1/2 (exceeded retry
// limit, last status: 429 Too Many Requests)"). Any other error is held
// until the turn ends: fatal if the turn fails, a notice if it completes.
func (d *CodexExecDecoder) errorLine(msg string) []adapters.Event {
	retry := strings.HasPrefix(msg, "Reconnecting")
	info := &adapters.ErrorInfo{Message: adapters.FirstLine(msg), Code: codexExecErrorCode(msg), Retry: retry, Fatal: !retry}
	if retry {
		return []adapters.Event{{Type: adapters.EventError, Error: info}}
	}
	d.pending = info
	return nil
}

func codexExecErrorCode(msg string) adapters.ErrorCode {
	if strings.Contains(msg, "429") || strings.Contains(strings.ToLower(msg), "rate limit") {
		return adapters.CodeRateLimit
	}
	return adapters.CodeProvider
}

func (d *CodexExecDecoder) turnFailed(msg string) []adapters.Event {
	info := cmp.Or(d.pending, &adapters.ErrorInfo{Message: "codex turn failed", Code: adapters.CodeProvider, Fatal: true})
	if msg != "" {
		info = &adapters.ErrorInfo{Message: adapters.FirstLine(msg), Code: info.Code, Fatal: true}
	}
	d.pending = nil
	return adapters.Failure(info)
}

func (d *CodexExecDecoder) turnCompleted(u *codexExecUsage) []adapters.Event {
	out := recovered(d.pending)
	d.pending = nil
	if u != nil {
		total, prev := codexTokens(*u), d.total
		d.total = total
		if total.InputTokens < prev.InputTokens {
			prev = codexTokens{}
		}
		out = append(out, adapters.Event{Type: adapters.EventUsage, Usage: codexSub(total, prev).usage()})
	}
	return append(out, adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn})
}

func (d *CodexExecDecoder) item(it *codexExecItem, phase string) ([]adapters.Event, bool) {
	completed := phase == "item.completed"
	switch it.Type {
	case "reasoning":
		return d.items.finalText(it.codexItem, adapters.EventThought, it.Text, completed), true
	case "file_change":
		return toolEvent(d.items.started, codexExecFileChange(it), phase == "item.started", completed), true
	case "error":
		if !completed {
			return nil, true
		}
		return []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: adapters.FirstLine(it.Message), Code: adapters.CodeWarning}}}, true
	case "todo_list":
		return codexExecPlan(it.Items), true
	}
	ci := it.codexItem
	ci.Type = codexExecTypes[it.Type]
	if it.ExitCode != nil || it.AggregatedOutput != "" {
		ci.AggregatedOutput, ci.ExitCode = &it.AggregatedOutput, it.ExitCode
	}
	return d.items.itemEvents(ci, phase == "item.started", completed)
}

// codexExecTypes are app-server's names of the exec items decoded as
// app-server's (their members are named alike, or mapped in item).
var codexExecTypes = map[string]string{"agent_message": "agentMessage", "command_execution": "commandExecution",
	"mcp_tool_call": "mcpToolCall", "web_search": "webSearch"}

// codexExecPlan decodes todo_list items.
func codexExecPlan(raw json.RawMessage) []adapters.Event {
	var items []struct {
		Text      string `json:"text"`
		Completed bool   `json:"completed"`
	}
	_ = adapters.Unmarshal(raw, &items)
	plan := make([]adapters.PlanEntry, 0, len(items))
	for _, i := range items {
		st := "pending"
		if i.Completed {
			st = "completed"
		}
		plan = append(plan, adapters.PlanEntry{Content: i.Text, Priority: "medium", Status: st})
	}
	return []adapters.Event{{Type: adapters.EventPlan, Plan: plan}}
}

// codexExecFileChange is exec's file change, which names the files and
// their kind of change, not the diff.
func codexExecFileChange(it *codexExecItem) *adapters.ToolCall {
	var ch []codexChange
	_ = adapters.Unmarshal(it.Changes, &ch) // a malformed list keeps what encoding/json filled in
	t := &adapters.ToolCall{ID: it.ID, Status: codexStatus(it.Status), Name: "apply_patch", Kind: adapters.KindEdit,
		Title: codexChangeTitle(ch), RawInput: adapters.RawOrNil(it.Changes)}
	for _, c := range ch {
		t.Locations = append(t.Locations, adapters.Location{Path: c.Path})
	}
	return t
}

// codexCommandJSON is {"command": cmd}.
func codexCommandJSON(cmd string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Command string `json:"command"`
	}{cmd})
	return b
}
