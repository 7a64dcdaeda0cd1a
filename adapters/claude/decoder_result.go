package claude

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/hubdev/hub/adapters"
)

func (d *ClaudeDecoder) result(l *claudeLine) []adapters.Event {
	// A turn ends here; drop half-streamed blocks so the next turn starts clean.
	clear(d.blocks)
	clear(d.streamed)
	d.unclaimed = d.unclaimed[:0]
	kind := d.apiError
	d.apiError = ""
	out := []adapters.Event{}
	if o := l.StructuredOutput; len(o) > 0 && string(o) != "null" {
		// The --json-schema answer, the turn's final answer, ends the turn as its text.
		out = append(out, adapters.Event{Type: adapters.EventText, Text: string(o), MessageID: "structured_output"})
	}
	if u := claudeResultUsage(l); u != nil {
		if u.CostUSD != nil { // total_cost_usd is the process's so far: the turn's is what it added
			c := *u.CostUSD - d.cost
			d.start, d.cost, u.CostUSD = d.cost, *u.CostUSD, &c
		}
		out = append(out, adapters.Event{Type: adapters.EventUsage, Usage: u})
	}
	stop := adapters.StopEndTurn
	switch {
	case l.Subtype == "error_max_turns":
		stop = adapters.StopMaxTurnRequests
	case strings.HasPrefix(l.TerminalReason, "aborted"):
		stop = adapters.StopCancelled
	case l.StopReason == "max_tokens",
		// claude resumes a cut answer itself a few times, then gives up with
		// an api error result whose stop_reason is stop_sequence.
		kind == "max_output_tokens":
		stop = adapters.StopMaxTokens
	case l.StopReason == "refusal":
		stop = adapters.StopRefusal
	case l.IsError:
		out = append(out, adapters.Event{Type: adapters.EventError, Error: claudeResultError(l, d.CLI, kind)})
	}
	return append(out, adapters.Event{Type: adapters.EventDone, StopReason: stop})
}

// Continue says the last result did not end the turn (steered input waits for a cycle
// of its own): the next result's cost counts from the turn's start.
func (d *ClaudeDecoder) Continue() { d.cost = d.start }

func claudeResultUsage(l *claudeLine) *adapters.Usage {
	if l.Usage == nil && l.TotalCostUSD == nil {
		return nil
	}
	u := l.Usage.usage()
	u.CostUSD = l.TotalCostUSD
	for _, m := range l.ModelUsage {
		u.ContextSize = max(u.ContextSize, m.ContextWindow)
	}
	return u
}

// claudeResultError classifies a failed result. kind is the error kind of the api error
// message before it ("" if none); cli is "" for claude.
func claudeResultError(l *claudeLine, cli, kind string) *adapters.ErrorInfo {
	status := l.APIErrorStatus
	e := &adapters.ErrorInfo{Code: adapters.CodeProvider, Fatal: true, Status: status}
	notLoggedIn := strings.Contains(strings.ToLower(l.Result), "not logged in")
	switch {
	case status == 401 || status == 403 || kind == "authentication_failed" || notLoggedIn ||
		strings.Contains(l.Result, "authentication") || strings.Contains(l.Result, "Invalid API key"):
		e.Code = adapters.CodeAuth
	case status == 429 || kind == "rate_limit":
		e.Code = adapters.CodeRateLimit
	case l.Subtype == "error_max_budget_usd":
		e.Code = adapters.CodeBudget
	case l.Subtype != "" && l.Subtype != "success":
		e.Code = adapters.CodeAgent
	}
	name := cmp.Or(cli, "claude")
	msg := adapters.FirstLine(l.Result)
	if msg == "" && len(l.Errors) > 0 {
		msg = adapters.FirstLine(l.Errors[0])
	}
	msg = cmp.Or(msg, name+" turn failed ("+l.Subtype+", "+l.TerminalReason+")")
	detail := l.Errors
	if notLoggedIn && cli == "" {
		// claude's own text names /login, which a headless run cannot reach.
		detail = append([]string{strings.TrimSpace(l.Result)}, detail...)
		msg = "not logged in — run `claude` and /login, or set ANTHROPIC_API_KEY"
	}
	e.Message = name + ": " + msg
	e.Detail = strings.Join(detail, "\n")
	return e
}

// ClaudeControlRequest is a `control_request` line claude writes to stdout; the adapter
// must answer each with a control_response on stdin.
type ClaudeControlRequest struct {
	Type                 string `json:"type"`
	RequestID            string `json:"request_id"`
	ClaudeControlSubject `json:"request"`
}

type ClaudeControlSubject struct {
	Subtype   string          `json:"subtype"`
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	Input     json.RawMessage `json:"input"`
	AgentID   string          `json:"agent_id"` // a subagent's request
}

// ParseClaudeControlRequest reads a control_request line (as in a permission event's Raw).
func ParseClaudeControlRequest(line []byte) (ClaudeControlRequest, bool) {
	var r ClaudeControlRequest
	if adapters.Unmarshal(line, &r) != nil || r.Type != "control_request" {
		return ClaudeControlRequest{}, false
	}
	return r, true
}

func (d *ClaudeDecoder) controlRequest(l *claudeLine, line []byte) []adapters.Event {
	req := ClaudeControlRequest{Type: l.Type, RequestID: l.RequestID, ClaudeControlSubject: l.Request}
	if req.Subtype != "can_use_tool" {
		d.Control(ClaudeControl{Request: &req})
		return nil
	}
	id := cmp.Or(req.ToolUseID, "perm_"+req.RequestID)
	input := req.Input
	if len(input) == 0 || !json.Valid(input) {
		input = json.RawMessage("{}")
	}
	tc := ClaudeToolCall(id, req.ToolName, input)
	tc.Status = adapters.StatusPending
	p := adapters.NewPermissionRequest(tc, nil)
	if d.isolated && req.AgentID != "" && placeBound(tc) {
		p.MustAsk = "a subagent of claude may run this in a worktree or folder of its own: hub cannot tell which, so it is asked every time"
	}
	return []adapters.Event{{
		Type:       adapters.EventPermission,
		Permission: p,
		Raw:        append(json.RawMessage(nil), line...),
		Source:     ClaudeSourceCanUseTool,
	}}
}

// usage is c's counts, none when c is nil.
func (c *claudeUsage) usage() *adapters.Usage {
	u := &adapters.Usage{}
	if c == nil {
		return u
	}
	u.InputTokens, u.OutputTokens = c.InputTokens, c.OutputTokens
	u.CacheReadTokens, u.CacheWriteTokens = c.CacheReadTokens, c.CacheCreationTokens
	if c.OutputDetails != nil {
		u.ThoughtTokens = c.OutputDetails.ThinkingTokens
	}
	u.ContextUsed = u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens
	return u
}

// requestUsage is one model request's usage, at its message_delta: message_start's
// counts updated by the delta's, so a budget sees a looping turn before its result.
func (d *ClaudeDecoder) requestUsage(parent string, delta *claudeUsage) []adapters.Event {
	c := *cmp.Or(d.request[parent], new(claudeUsage))
	delete(d.request, parent)
	if delta != nil {
		c.InputTokens = cmp.Or(delta.InputTokens, c.InputTokens)
		c.OutputTokens = cmp.Or(delta.OutputTokens, c.OutputTokens)
		c.CacheReadTokens = cmp.Or(delta.CacheReadTokens, c.CacheReadTokens)
		c.CacheCreationTokens = cmp.Or(delta.CacheCreationTokens, c.CacheCreationTokens)
		c.OutputDetails = cmp.Or(delta.OutputDetails, c.OutputDetails)
	}
	u := c.usage()
	if u.ContextUsed == 0 {
		return nil
	}
	u.PerRequest = true
	return []adapters.Event{{Type: adapters.EventUsage, Usage: u}}
}
