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
	started map[string]bool
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
	return &CodexExecDecoder{started: map[string]bool{}}
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
	var out []adapters.Event
	if d.pending != nil {
		p := *d.pending
		p.Fatal = false
		out = append(out, adapters.Event{Type: adapters.EventError, Error: &p})
		d.pending = nil
	}
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
	case "agent_message":
		return codexExecText(adapters.EventText, it, completed), true
	case "reasoning":
		return codexExecText(adapters.EventThought, it, completed), true
	case "error":
		if !completed {
			return nil, true
		}
		return []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: adapters.FirstLine(it.Message), Code: adapters.CodeWarning}}}, true
	case "todo_list":
		return codexExecPlan(it.Items), true
	}
	tool, ok := codexExecTool(it)
	if !ok {
		return nil, false
	}
	return toolEvent(d.started, tool, phase == "item.started", completed), true
}

func codexExecText(typ adapters.EventType, it *codexExecItem, completed bool) []adapters.Event {
	if !completed || it.Text == "" {
		return nil
	}
	return []adapters.Event{{Type: typ, Text: it.Text, MessageID: it.ID}}
}

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

// codexExecTool maps a tool item.
func codexExecTool(it *codexExecItem) (*adapters.ToolCall, bool) {
	t := &adapters.ToolCall{ID: it.ID, Status: codexStatus(it.Status)}
	switch it.Type {
	case "command_execution":
		t.Name, t.Kind, t.Title = "shell", adapters.KindExecute, it.Command
		t.RawInput = codexCommandJSON(it.Command)
		if it.AggregatedOutput != "" {
			t.Content = []adapters.ToolContent{{Type: adapters.ToolContentText, Text: codexTail(it.AggregatedOutput)}}
		}
		if it.ExitCode != nil {
			// Fields in map key order: the bytes match the former map encoding.
			t.RawOutput, _ = json.Marshal(struct {
				ExitCode int    `json:"exitCode"`
				Output   string `json:"output"`
			}{*it.ExitCode, codexTail(it.AggregatedOutput)})
		}
	case "file_change":
		var ch []codexChange
		_ = adapters.Unmarshal(it.Changes, &ch) // a malformed list keeps what encoding/json filled in
		t.Name, t.Kind = "apply_patch", adapters.KindEdit
		for _, c := range ch {
			t.Locations = append(t.Locations, adapters.Location{Path: c.Path})
		}
		t.Title = codexChangeTitle(ch)
		t.RawInput = adapters.RawOrNil(it.Changes)
	case "mcp_tool_call":
		t.Name, t.Kind, t.Title = it.Server+"."+it.Tool, adapters.KindOther, it.Server+": "+it.Tool
		t.RawInput = adapters.RawOrNil(it.Arguments)
		t.Content, t.RawOutput = codexMCPResult(it.codexItem)
	case "web_search":
		t.Name, t.Kind, t.Title = "web_search", adapters.KindFetch, "Search the web: "+it.Query
	default:
		return nil, false
	}
	return t, true
}

// codexCommandJSON is {"command": cmd}.
func codexCommandJSON(cmd string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Command string `json:"command"`
	}{cmd})
	return b
}
