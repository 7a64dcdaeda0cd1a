package mockllm

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
)

// AnthropicToolUse is one tool_use block the scripted assistant emits.
type AnthropicToolUse struct {
	ID    string // default "toolu_mock_<turn>_<index>"
	Name  string
	Input string // JSON object, streamed as input_json_delta chunks
}

// AnthropicTurn is one scripted answer to one POST /v1/messages.
type AnthropicTurn struct {
	Thinking string // a thinking block (with a signature) before Text
	Text     string
	ToolUses []AnthropicToolUse
	// StopReason defaults to "tool_use" when ToolUses is set, else "end_turn".
	StopReason string
	// Status (e.g. 400, 529) answers with an Anthropic error body instead.
	Status    int
	ErrorType string // default "invalid_request_error"
	ErrorMsg  string // default "mock: forced error"
}

// AnthropicRequest is one request the server received.
type AnthropicRequest struct {
	Body     []byte           `json:"-"` // as sent
	Beta     bool             // ?beta=true was set
	Model    string           `json:"model"`
	Stream   bool             `json:"stream"`
	System   json.RawMessage  `json:"system"`
	Messages []map[string]any `json:"messages"`
	Tools    []map[string]any `json:"tools"`
}

// AnthropicServer is a scripted Anthropic Messages API server on loopback.
// Point Claude Code at it with ANTHROPIC_BASE_URL=URL and any ANTHROPIC_API_KEY.
type AnthropicServer struct {
	// URL is the base URL without /v1 (what ANTHROPIC_BASE_URL expects).
	URL string

	script[AnthropicTurn, AnthropicRequest]
}

// NewAnthropicServer starts a server answering requests with turns in order.
// When the script runs out it answers 400 "mockllm: script exhausted" (a 4xx,
// so clients fail fast instead of retrying).
func NewAnthropicServer(turns ...AnthropicTurn) *AnthropicServer {
	s := &AnthropicServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 42})
	})
	s.start(turns, mux)
	s.URL = s.srv.URL
	return s
}

func (s *AnthropicServer) messages(w http.ResponseWriter, r *http.Request) {
	var req AnthropicRequest
	req.Body = read(r, &req)
	req.Beta = r.URL.Query().Get("beta") == "true"
	t, idx, ok := s.take(req, true)
	if !ok {
		t = AnthropicTurn{Status: http.StatusBadRequest, ErrorMsg: "mockllm: script exhausted"}
	}
	uses, msg, offered := resolveCalls(t.ToolUses, func(c *AnthropicToolUse) *string { return &c.Name }, req.Tools)
	t.ToolUses = uses
	switch {
	case t.Status != 0:
		anthropicError(w, t.Status, t.ErrorType, cmp.Or(t.ErrorMsg, "mock: forced error"))
	case !offered:
		anthropicError(w, http.StatusBadRequest, "", msg)
	case req.Stream:
		anthropicStream(w, t, idx, req.Model)
	default:
		writeJSON(w, http.StatusOK, anthropicMessage(t, idx, req.Model))
	}
}

func anthropicError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": cmp.Or(typ, "invalid_request_error"), "message": msg}})
}

func anthropicStop(t AnthropicTurn) string {
	return stopOr(t.StopReason, len(t.ToolUses) > 0, "tool_use", "end_turn")
}

// anthropicMessage is the whole (non-streamed) message for a turn.
func anthropicMessage(t AnthropicTurn, idx int, model string) map[string]any {
	content := []any{}
	if t.Thinking != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": t.Thinking, "signature": "c2lnbmF0dXJl"})
	}
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	for i, tu := range t.ToolUses {
		content = append(content, map[string]any{"type": "tool_use", "id": callID(tu.ID, "toolu_mock", idx, i),
			"name": tu.Name, "input": json.RawMessage(cmp.Or(tu.Input, "{}"))})
	}
	return map[string]any{"id": fmt.Sprintf("msg_mock_%d", idx), "type": "message", "role": "assistant",
		"model": cmp.Or(model, "claude-mock"), "content": content, "stop_reason": anthropicStop(t), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 42, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
}

func anthropicStream(w http.ResponseWriter, t AnthropicTurn, idx int, model string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	start := anthropicMessage(AnthropicTurn{}, idx, model) // no content yet
	start["stop_reason"] = nil
	namedEvent(w, "message_start", map[string]any{"message": start})
	block := 0
	// send streams one content block: its start, text as deltas of type typ
	// (the text in field), then the deltas in more, and its stop.
	send := func(start map[string]any, text, typ, field string, more ...map[string]any) {
		namedEvent(w, "content_block_start", map[string]any{"index": block, "content_block": start})
		var deltas []map[string]any
		for _, part := range split(text, 0) {
			deltas = append(deltas, map[string]any{"type": typ, field: part})
		}
		for _, d := range append(deltas, more...) {
			namedEvent(w, "content_block_delta", map[string]any{"index": block, "delta": d})
		}
		namedEvent(w, "content_block_stop", map[string]any{"index": block})
		block++
	}
	if t.Thinking != "" {
		send(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, t.Thinking, "thinking_delta", "thinking",
			map[string]any{"type": "signature_delta", "signature": "c2lnbmF0dXJl"})
	}
	if t.Text != "" {
		send(map[string]any{"type": "text", "text": ""}, t.Text, "text_delta", "text")
	}
	for i, tu := range t.ToolUses {
		send(map[string]any{"type": "tool_use", "id": callID(tu.ID, "toolu_mock", idx, i), "name": tu.Name, "input": map[string]any{}},
			cmp.Or(tu.Input, "{}"), "input_json_delta", "partial_json")
	}
	namedEvent(w, "message_delta", map[string]any{"delta": map[string]any{"stop_reason": anthropicStop(t), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 17}})
	namedEvent(w, "message_stop", map[string]any{})
}
