package pi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hubdev/hub/adapters"
)

// PiResponse is the `response` record of `pi --mode rpc` to a command.
type PiResponse struct {
	ID      string          `json:"id,omitempty"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Error   string          `json:"error,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// PiDecoder decodes one stream of pi 0.73's events (`--mode json` or
// `--mode rpc`). pi says it retries a failed run only after its agent_end:
// that end is held back (PendingEnd) until the next record tells.
type PiDecoder struct {
	// Cwd resolves relative tool paths; --mode json's session header sets it when empty.
	Cwd string
	// OnResponse, when set, sees every rpc response first; true consumes it.
	// Otherwise successes become EventRaw and failures non-fatal EventError.
	OnResponse func(PiResponse) bool
	// OnUIRequest, when set, takes extension_ui_request records (an
	// extension's dialog) instead of their becoming raw events.
	OnUIRequest func(id, method string)

	tools     map[string]piToolState
	stop      string
	errMsg    string
	costTotal float64
	emitted   []int // per content index: bytes already emitted (fallback without assistantMessageEvent)
	held      []adapters.Event
	retrying  bool // between auto_retry_start and the end of the retried run
	compacts  int  // compactions seen, for their IDs
}

type piToolState struct {
	name string
	args json.RawMessage
}

func NewPiDecoder(cwd string) *PiDecoder { return &PiDecoder{Cwd: cwd} }

// piRecord holds the top-level members the decoder looks at (one of an
// unexpected type is left zero); the bulky ones stay raw (pi repeats the
// whole partial message in every message_update).
type piRecord struct {
	Typ           json.RawMessage `json:"type"`
	Ame           json.RawMessage `json:"assistantMessageEvent"`
	Message       json.RawMessage `json:"message"`
	ID            string          `json:"id"`
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	Args          json.RawMessage `json:"args"`
	PartialResult json.RawMessage `json:"partialResult"`
	Result        json.RawMessage `json:"result"`
	IsError       bool            `json:"isError"`
	Command       string          `json:"command"`
	Success       bool            `json:"success"`
	ErrorField    string          `json:"error"`
	Data          json.RawMessage `json:"data"`
	Method        string          `json:"method"`
	Cwd           string          `json:"cwd"`
	Attempt       json.RawMessage `json:"attempt"`
	MaxAttempts   json.RawMessage `json:"maxAttempts"`
	DelayMs       int64           `json:"delayMs"`
	ErrorMessage  string          `json:"errorMessage"`
	FinalError    string          `json:"finalError"`
	WillRetry     json.RawMessage `json:"willRetry"`
	Aborted       bool            `json:"aborted"`
}

func (d *PiDecoder) Decode(line []byte) []adapters.Event {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	var r piRecord
	ok := adapters.Unmarshal(line, &r) == nil && r.Typ != nil
	var typ string
	_ = adapters.Unmarshal(r.Typ, &typ) // not a string: ""
	var out []adapters.Event
	if d.held != nil && (!ok || (typ != "auto_retry_start" && typ != "auto_retry_end")) {
		out, d.held = d.held, nil
	}
	if !ok {
		return append(out, adapters.RawEvent("pi:malformed", line))
	}
	return append(out, d.record(typ, &r, line)...)
}

// PendingEnd reports whether the end of a failed run is held back. pi
// writes auto_retry_start right after agent_end, so the response to any
// command sent now releases the end if no retry came.
func (d *PiDecoder) PendingEnd() bool { return d.held != nil }

// Flush returns the held end of a failed run, for a stream that ended.
func (d *PiDecoder) Flush() []adapters.Event {
	out := d.held
	d.held = nil
	return out
}

// piRecords decode the records that need nothing but their members.
var piRecords = map[string]func(*PiDecoder, *piRecord) []adapters.Event{
	"message_update": (*PiDecoder).messageUpdate, "message_end": (*PiDecoder).messageEnd,
	"tool_execution_start": (*PiDecoder).toolStart, "tool_execution_update": (*PiDecoder).toolUpdate,
	"tool_execution_end": (*PiDecoder).toolEnd, "auto_retry_start": (*PiDecoder).retryStart,
	"auto_retry_end": (*PiDecoder).retryEnd, "session": (*PiDecoder).session,
}

func (d *PiDecoder) record(typ string, r *piRecord, line []byte) []adapters.Event {
	if decode := piRecords[typ]; decode != nil {
		return decode(d, r)
	}
	switch typ {
	case "agent_start": // a prompt's run: its cost is the turn's
		d.stop, d.errMsg, d.costTotal = "", "", 0
		return nil
	case "turn_start", "turn_end":
		return nil
	case "message_start":
		d.emitted = d.emitted[:0]
		return nil
	case "agent_end":
		failed := d.stop == "error"
		evs := d.agentEnd()
		// pi 1.x says whether it retries; 0.73 only tells with the next record.
		if failed && string(r.WillRetry) != "false" {
			d.held = evs
			return nil
		}
		d.retrying = false
		return evs
	case "compaction_start":
		d.compacts++
		return []adapters.Event{d.compaction("in_progress", "")}
	case "compaction_end":
		return []adapters.Event{d.compactionEnd(r)}
	case "response":
		return d.response(r, line)
	case "extension_ui_request":
		if d.OnUIRequest != nil {
			d.OnUIRequest(r.ID, r.Method)
			return nil
		}
	case "extension_error":
		return []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{
			Message: "pi extension failed: " + adapters.FirstLine(r.ErrorField), Code: adapters.CodeExtension}}}
	}
	return []adapters.Event{adapters.RawEvent("pi:"+typ, line)}
}

// piPassThrough are documented pi records hub passes on raw without a warning.
var piPassThrough = map[string]bool{"queue_update": true, "extension_ui_request": true}

func (d *PiDecoder) compaction(status, errMsg string) adapters.Event {
	return adapters.Event{Type: adapters.EventCompaction, Compaction: &adapters.Compaction{
		ID: "pi-compaction-" + strconv.Itoa(max(d.compacts, 1)), Status: status, Error: errMsg}}
}

func (d *PiDecoder) compactionEnd(r *piRecord) adapters.Event {
	if r.ErrorMessage != "" {
		return d.compaction("failed", adapters.FirstLine(r.ErrorMessage))
	}
	if r.Aborted {
		return d.compaction("cancelled", "")
	}
	ev := d.compaction("completed", "")
	var res struct {
		Summary string `json:"summary"`
	}
	if adapters.Unmarshal(r.Result, &res) == nil {
		ev.Compaction.Summary = res.Summary
	}
	return ev
}

// PiUnknownRecord returns the record type behind a raw event that pi 0.73
// does not document ("malformed" for a line that is no pi record), else "".
func PiUnknownRecord(ev adapters.Event) string {
	typ, ok := strings.CutPrefix(ev.Source, "pi:")
	if ev.Type != adapters.EventRaw || !ok || piPassThrough[typ] || strings.HasPrefix(typ, "response/") {
		return ""
	}
	return typ
}

func (d *PiDecoder) retryStart(r *piRecord) []adapters.Event {
	d.held, d.retrying = nil, true
	msg := cmp.Or(adapters.FirstLine(r.ErrorMessage), "the model provider returned an error")
	return []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{
		Message: fmt.Sprintf("pi: %s (pi retries in %s, attempt %s of %s)", msg, time.Duration(r.DelayMs)*time.Millisecond,
			piNumber(r.Attempt), piNumber(r.MaxAttempts)),
		Code: PiErrorCode(msg), Detail: r.ErrorMessage, Retry: true}}}
}

func (d *PiDecoder) retryEnd(r *piRecord) []adapters.Event {
	pending := d.held != nil || d.retrying
	d.held, d.retrying = nil, false
	if r.Success || !pending {
		return nil
	}
	final := r.FinalError
	if final == "Retry cancelled" {
		return []adapters.Event{{Type: adapters.EventDone, StopReason: adapters.StopCancelled}}
	}
	msg := cmp.Or(adapters.FirstLine(final), "the model provider kept failing")
	return adapters.Failure(&adapters.ErrorInfo{
		Message: fmt.Sprintf("pi: %s (gave up after %s retries)", msg, piNumber(r.Attempt)),
		Code:    PiErrorCode(msg), Detail: final, Fatal: true})
}

func piNumber(v []byte) string {
	if _, err := strconv.ParseFloat(string(v), 64); err != nil {
		return "?"
	}
	return string(v)
}

func (d *PiDecoder) messageUpdate(r *piRecord) []adapters.Event {
	if r.Ame == nil {
		return d.partialFallback(r.Message)
	}
	var a struct { // the assistantMessageEvent, without its bulky "partial"
		Type     string          `json:"type"`
		Delta    string          `json:"delta"`
		ToolCall json.RawMessage `json:"toolCall"`
	}
	if adapters.Unmarshal(r.Ame, &a) != nil {
		return nil
	}
	switch typ := piDeltas[a.Type]; {
	case typ != "" && a.Delta != "":
		return []adapters.Event{{Type: typ, Text: a.Delta}}
	case a.Type == "toolcall_end":
		var tc struct {
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if adapters.Unmarshal(a.ToolCall, &tc) != nil || tc.ID == "" {
			return nil
		}
		return d.announce(tc.ID, tc.Name, tc.Arguments, adapters.StatusPending)
	}
	return nil
}

var piDeltas = map[string]adapters.EventType{"text_delta": adapters.EventText,
	"thinking_delta": adapters.EventThought}

// partialFallback diffs the partial message against what was emitted, for
// streams without assistantMessageEvent.
func (d *PiDecoder) partialFallback(message []byte) []adapters.Event {
	var m struct {
		Role    string `json:"role"`
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Thinking string `json:"thinking"`
		} `json:"content"`
	}
	if message == nil || adapters.Unmarshal(message, &m) != nil || m.Role != "assistant" {
		return nil
	}
	var out []adapters.Event
	for i, c := range m.Content {
		for len(d.emitted) <= i {
			d.emitted = append(d.emitted, 0)
		}
		typ, s := adapters.EventText, c.Text
		if c.Type == "thinking" {
			typ, s = adapters.EventThought, c.Thinking
		} else if c.Type != "text" {
			continue
		}
		if len(s) > d.emitted[i] {
			out = append(out, adapters.Event{Type: typ, Text: s[d.emitted[i]:]})
			d.emitted[i] = len(s)
		}
	}
	return out
}

func (d *PiDecoder) messageEnd(r *piRecord) []adapters.Event {
	var m struct { // what message_end needs of a message (not its content)
		Role         string `json:"role"`
		StopReason   string `json:"stopReason"`
		ErrorMessage string `json:"errorMessage"`
		Usage        *struct {
			Input       int64 `json:"input"`
			Output      int64 `json:"output"`
			CacheRead   int64 `json:"cacheRead"`
			CacheWrite  int64 `json:"cacheWrite"`
			TotalTokens int64 `json:"totalTokens"`
			Cost        *struct {
				Total float64 `json:"total"`
			} `json:"cost"`
		} `json:"usage"`
	}
	if adapters.Unmarshal(r.Message, &m) != nil || m.Role != "assistant" {
		return nil
	}
	d.stop, d.errMsg = m.StopReason, m.ErrorMessage
	u := m.Usage
	if u == nil {
		return nil
	}
	u.TotalTokens = cmp.Or(u.TotalTokens, u.Input+u.Output+u.CacheRead+u.CacheWrite)
	if u.TotalTokens == 0 {
		return nil
	}
	usage := &adapters.Usage{InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead,
		CacheWriteTokens: u.CacheWrite, ContextUsed: u.TotalTokens}
	if u.Cost != nil {
		d.costTotal += u.Cost.Total
		usage.CostUSD = new(d.costTotal)
	}
	return []adapters.Event{{Type: adapters.EventUsage, Usage: usage}}
}

func (d *PiDecoder) agentEnd() []adapters.Event {
	var out []adapters.Event
	reason := adapters.StopEndTurn
	switch d.stop {
	case "aborted":
		reason = adapters.StopCancelled
	case "length":
		reason = adapters.StopMaxTokens
	case "error":
		msg := cmp.Or(adapters.FirstLine(d.errMsg), "the model provider returned an error")
		out = append(out, adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{
			Message: "pi: " + msg, Code: PiErrorCode(msg), Detail: d.errMsg}})
	}
	d.stop, d.errMsg = "", ""
	d.tools = nil
	return append(out, adapters.Event{Type: adapters.EventDone, StopReason: reason})
}

// PiErrorCode classifies pi errors; provider errors carry the HTTP status first.
func PiErrorCode(msg string) adapters.ErrorCode {
	switch {
	case strings.HasPrefix(msg, "401"), strings.HasPrefix(msg, "403"),
		strings.Contains(strings.ToLower(msg), "api key"):
		return adapters.CodeAuth
	case strings.HasPrefix(msg, "429"), strings.Contains(strings.ToLower(msg), "rate limit"),
		strings.Contains(strings.ToLower(msg), "too many requests"):
		return adapters.CodeRateLimit
	}
	return adapters.CodeProvider
}

func (d *PiDecoder) response(r *piRecord, line []byte) []adapters.Event {
	resp := PiResponse{ID: r.ID, Command: r.Command, Success: r.Success, Error: r.ErrorField, Data: bytes.Clone(r.Data)}
	if d.OnResponse != nil && d.OnResponse(resp) {
		return nil
	}
	if resp.Success {
		return []adapters.Event{adapters.RawEvent("pi:response/"+resp.Command, line)}
	}
	return []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{
		Message: "pi rejected the " + resp.Command + " command: " + adapters.FirstLine(resp.Error), Code: adapters.CodeProtocol}}}
}

func (d *PiDecoder) session(r *piRecord) []adapters.Event {
	d.Cwd = cmp.Or(d.Cwd, r.Cwd)
	if r.ID == "" {
		return nil
	}
	return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: r.ID}}}
}

// absPath is p resolved against the decoder's cwd; "" if it cannot be.
func (d *PiDecoder) absPath(p string) string {
	p = strings.TrimPrefix(p, "@")
	if strings.HasPrefix(p, "~") {
		return ""
	}
	abs, _ := adapters.AgentPath(d.Cwd, p) // "" for ""
	return abs
}
