package codex

import (
	"cmp"
	"encoding/json"

	"github.com/hubdev/hub/adapters"
)

// The app-server requests that ask for approval, decoded as permission events.
const (
	CodexMethodCommandApproval = "item/commandExecution/requestApproval"
	CodexMethodFileApproval    = "item/fileChange/requestApproval"
)

// CodexDecoder decodes the JSON-RPC lines of one `codex app-server` stream;
// it is not safe for concurrent use.
type CodexDecoder struct {
	Cwd string // makes relative file-change paths absolute

	streamed map[string]bool     // items whose text arrived as deltas
	started  map[string]bool     // the turn's tool items, true until they complete
	output   map[string]string   // command output so far, by item id
	base     *codexTokens        // cumulative usage when the turn started
	pending  *adapters.ErrorInfo // last non-retried error, reported at turn end
	retried  *adapters.ErrorInfo // the last retry's cause: a failure's that tells none
	rawCalls map[string]string   // call id: a shell call's arguments, until its output (decoder_raw.go)

	files map[string]adapters.ToolCall // running file changes, by item id: their approval names no file
}

func NewCodexDecoder() *CodexDecoder {
	return &CodexDecoder{streamed: map[string]bool{}, started: map[string]bool{}, output: map[string]string{},
		rawCalls: map[string]string{}, files: map[string]adapters.ToolCall{}}
}

type CodexMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// codexQuiet are notifications with nothing for the user.
var codexQuiet = map[string]bool{
	"turn/started": true, "thread/status/changed": true, "serverRequest/resolved": true,
	"item/reasoning/summaryPartAdded": true, "account/rateLimits/updated": true,
	"remoteControl/status/changed": true, "mcpServer/startupStatus/updated": true,
	"thread/settings/updated": true, "turn/diff/updated": true, "skills/changed": true,
	"rawResponse/completed": true, "thread/readState/changed": true,
}

func (d *CodexDecoder) Decode(line []byte) []adapters.Event {
	return adapters.DecodeJSON(line, "codex:invalid", d.DecodeMessage)
}

// DecodeMessage decodes one message already split into its members; line
// is the whole message, kept for records hub does not understand.
func (d *CodexDecoder) DecodeMessage(m *CodexMessage, line []byte) []adapters.Event {
	switch {
	case len(m.ID) > 0 && m.Method == "": // the answer to one of the client's requests
		if evs, ok := d.threadInfo(m.Result); ok {
			return evs
		}
		return []adapters.Event{adapters.RawEvent("codex:response", line)}
	case len(m.ID) > 0: // the server asks the client something
		return d.request(*m, line)
	case codexQuiet[m.Method]:
		return nil
	}
	if decode, ok := codexNotifications[m.Method]; ok {
		if evs, ok := decode(d, m.Params); ok {
			return evs
		}
	}
	return []adapters.Event{adapters.RawEvent("codex:"+m.Method, line)}
}

// codexDecode decodes one notification's params; false passes it on raw.
type codexDecode = func(d *CodexDecoder, params json.RawMessage) ([]adapters.Event, bool)

var codexNotifications = map[string]codexDecode{
	"thread/started":                    (*CodexDecoder).threadInfo,
	"thread/name/updated":               (*CodexDecoder).threadName,
	"item/agentMessage/delta":           codexTextDelta(adapters.EventText),
	"item/reasoning/summaryTextDelta":   codexTextDelta(adapters.EventThought),
	"item/reasoning/textDelta":          codexTextDelta(adapters.EventThought),
	"item/commandExecution/outputDelta": (*CodexDecoder).outputDelta,
	"item/fileChange/patchUpdated":      (*CodexDecoder).patchUpdated,
	"item/started":                      codexItemPhase(false),
	"item/completed":                    codexItemPhase(true),
	"turn/plan/updated":                 (*CodexDecoder).plan,
	"thread/tokenUsage/updated":         (*CodexDecoder).usage,
	"error":                             (*CodexDecoder).errorNote,
	"turn/completed":                    (*CodexDecoder).turnCompleted,
	"rawResponseItem/completed":         (*CodexDecoder).rawItem,
}

// threadInfo is the session info of a thread/start (resume, fork) result
// or a thread/started notification, which both carry the thread.
func (*CodexDecoder) threadInfo(raw json.RawMessage) ([]adapters.Event, bool) {
	var r struct {
		Thread struct {
			ID    string `json:"id"`
			Model string `json:"model"`
			Name  string `json:"name"`
		} `json:"thread"`
		Model string `json:"model"` // the result's, which wins
	}
	if adapters.Unmarshal(raw, &r) != nil || r.Thread.ID == "" {
		return nil, false
	}
	return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: r.Thread.ID,
		Model: cmp.Or(r.Model, r.Thread.Model), Title: r.Thread.Name}}}, true
}

func (*CodexDecoder) threadName(params json.RawMessage) ([]adapters.Event, bool) {
	var p struct {
		ThreadName string `json:"threadName"`
	}
	if adapters.Unmarshal(params, &p) != nil {
		return nil, false
	}
	return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{Title: p.ThreadName}}}, true
}

type codexDelta struct {
	ItemID string `json:"itemId"`
	Delta  string `json:"delta"`
}

// codexTextDelta decodes a message's or a reasoning's delta as typ.
func codexTextDelta(typ adapters.EventType) codexDecode {
	return func(d *CodexDecoder, params json.RawMessage) ([]adapters.Event, bool) {
		var p codexDelta
		if adapters.Unmarshal(params, &p) != nil {
			return nil, false
		}
		d.streamed[p.ItemID] = true
		if p.Delta == "" {
			return nil, true
		}
		return []adapters.Event{{Type: typ, Text: p.Delta, MessageID: p.ItemID}}, true
	}
}

// codexPlanStep is a step of app-server's plan (step, status) or of
// exec's todo_list (text, completed).
type codexPlanStep struct {
	Step, Text, Status string
	Completed          bool
}

func (*CodexDecoder) plan(params json.RawMessage) ([]adapters.Event, bool) {
	var p struct{ Plan []codexPlanStep }
	if adapters.Unmarshal(params, &p) != nil {
		return nil, false
	}
	return codexPlanEvent(p.Plan), true
}

func codexPlanEvent(steps []codexPlanStep) []adapters.Event {
	entries := make([]adapters.PlanEntry, 0, len(steps))
	for _, s := range steps {
		if s.Completed {
			s.Status = "completed"
		}
		entries = append(entries, adapters.PlanEntry{Content: s.Step + s.Text, Priority: "medium", Status: cmp.Or(codexPlanStatuses[s.Status], "pending")})
	}
	return []adapters.Event{{Type: adapters.EventPlan, Plan: entries}}
}

var codexPlanStatuses = map[string]string{"inProgress": "in_progress", "in_progress": "in_progress", "completed": "completed"}

type codexTokens struct {
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	CacheWriteInputTokens int64 `json:"cacheWriteInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
}

func (d *CodexDecoder) usage(params json.RawMessage) ([]adapters.Event, bool) {
	var p struct {
		TokenUsage struct {
			Total   codexTokens `json:"total"`
			Last    codexTokens `json:"last"`
			Context int64       `json:"modelContextWindow"`
		} `json:"tokenUsage"`
	}
	if adapters.Unmarshal(params, &p) != nil {
		return nil, false
	}
	tu := p.TokenUsage
	if d.base == nil {
		// First report of this turn: usage before it is total minus last call.
		d.base = new(codexSub(tu.Total, tu.Last))
	}
	u := codexSub(tu.Total, *d.base).usage()
	u.ContextUsed, u.ContextSize = tu.Last.InputTokens+tu.Last.OutputTokens, tu.Context
	return []adapters.Event{{Type: adapters.EventUsage, Usage: u}}, true
}

func (t codexTokens) usage() *adapters.Usage {
	return &adapters.Usage{InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, CacheReadTokens: t.CachedInputTokens,
		CacheWriteTokens: t.CacheWriteInputTokens, ThoughtTokens: t.ReasoningOutputTokens}
}

func codexSub(a, b codexTokens) codexTokens {
	return codexTokens{
		InputTokens:           a.InputTokens - b.InputTokens,
		CachedInputTokens:     a.CachedInputTokens - b.CachedInputTokens,
		CacheWriteInputTokens: a.CacheWriteInputTokens - b.CacheWriteInputTokens,
		OutputTokens:          a.OutputTokens - b.OutputTokens,
		ReasoningOutputTokens: a.ReasoningOutputTokens - b.ReasoningOutputTokens,
	}
}

type codexTurnError struct {
	Message          string          `json:"message"`
	CodexErrorInfo   json.RawMessage `json:"codexErrorInfo"`
	AdditionalDetail string          `json:"additionalDetails"`
}

// info is the error as the turn's failure (hold makes a retry's a notice).
func (e codexTurnError) info() adapters.ErrorInfo {
	code, status := codexErrorCode(e.CodexErrorInfo)
	return adapters.ErrorInfo{Message: adapters.FirstLine(e.Message), Code: code, Fatal: true, Status: status, Detail: e.AdditionalDetail}
}

func (d *CodexDecoder) errorNote(params json.RawMessage) ([]adapters.Event, bool) {
	var p struct {
		Error     codexTurnError `json:"error"`
		WillRetry bool           `json:"willRetry"`
	}
	if adapters.Unmarshal(params, &p) != nil {
		return nil, false
	}
	return d.hold(p.Error.info(), p.WillRetry), true
}

// hold keeps an error back until the turn ends, for both transports: its
// failure if it fails, a notice if codex recovers. A retry is told at
// once, as a notice; its cause is the failure of a turn that tells none.
func (d *CodexDecoder) hold(info adapters.ErrorInfo, retry bool) []adapters.Event {
	if !retry {
		d.pending = &info
		return nil
	}
	cause := info
	cause.Message = "codex turn failed after retrying: " + info.Message
	d.retried = &cause
	info.Retry, info.Fatal = true, false
	return []adapters.Event{{Type: adapters.EventError, Error: &info}}
}

func (d *CodexDecoder) turnCompleted(params json.RawMessage) ([]adapters.Event, bool) {
	var p struct {
		Turn struct {
			Status string          `json:"status"`
			Error  *codexTurnError `json:"error"`
		} `json:"turn"`
	}
	if adapters.Unmarshal(params, &p) != nil {
		return nil, false
	}
	var failure *adapters.ErrorInfo
	if e := p.Turn.Error; e != nil && e.Message != "" {
		failure = new(e.info())
	}
	return d.endTurn(p.Turn.Status, failure), true
}

// endTurn ends the turn for both transports: a failed one with failure, else
// the error held back, else the last retry's cause. usage goes before the end.
func (d *CodexDecoder) endTurn(status string, failure *adapters.ErrorInfo, usage ...adapters.Event) []adapters.Event {
	var out []adapters.Event
	stop := adapters.StopEndTurn
	switch {
	case status == "interrupted":
		stop = adapters.StopCancelled
	case status == "failed":
		info := cmp.Or(failure, d.pending, d.retried, &adapters.ErrorInfo{Message: "codex turn failed", Code: adapters.CodeProvider, Fatal: true})
		out = append(out, adapters.Event{Type: adapters.EventError, Error: info})
	case d.pending != nil:
		notice := *d.pending
		notice.Fatal = false
		out = append(out, adapters.Event{Type: adapters.EventError, Error: &notice})
	}
	d.pending, d.retried, d.base = nil, nil, nil
	clear(d.started)
	clear(d.rawCalls)
	return append(append(out, usage...), adapters.Event{Type: adapters.EventDone, StopReason: stop})
}

// codexErrorCode maps codexErrorInfo (a string or a one-key object) to an
// ErrorInfo code, and gives the HTTP status it names.
func codexErrorCode(raw json.RawMessage) (adapters.ErrorCode, int) {
	var s string
	status := 0
	if adapters.Unmarshal(raw, &s) != nil {
		var obj map[string]struct {
			HTTPStatusCode int `json:"httpStatusCode"`
		}
		_ = adapters.Unmarshal(raw, &obj)
		for k, v := range obj {
			s, status = k, cmp.Or(v.HTTPStatusCode, status)
		}
	}
	return cmp.Or(codexErrorCodes[s], adapters.StatusCode(status)), status
}

var codexErrorCodes = map[string]adapters.ErrorCode{"rateLimitExceeded": adapters.CodeRateLimit, "usageLimitExceeded": adapters.CodeRateLimit,
	"sessionBudgetExceeded": adapters.CodeRateLimit, "unauthorized": adapters.CodeAuth, "contextWindowExceeded": adapters.CodeContext}
