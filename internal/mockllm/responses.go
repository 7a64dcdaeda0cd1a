package mockllm

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
)

// ResponsesToolCall is one function call the scripted assistant makes.
type ResponsesToolCall struct {
	CallID string // default "call_<turn>_<index>"
	Name   string
	Args   string // JSON arguments as a string, as the Responses API sends them
	// Custom sends a custom_tool_call (free-form Input, e.g. codex's
	// apply_patch) instead of a function_call.
	Custom bool
	Input  string
}

// ResponsesUsage is the token usage a turn reports in response.completed.
type ResponsesUsage struct {
	InputTokens     int64
	CachedTokens    int64
	OutputTokens    int64
	ReasoningTokens int64
}

// ResponsesTurn is one scripted answer to one POST /responses.
type ResponsesTurn struct {
	Text      string
	Reasoning string // sent as a reasoning summary before Text
	ToolCalls []ResponsesToolCall
	Usage     *ResponsesUsage // default: small non-zero counts

	// Status, when set (e.g. 429, 500), answers with that HTTP status and an
	// OpenAI-style error body (ErrorBody if set); RetryAfter sets the header.
	Status     int
	RetryAfter string
	ErrorBody  string
	// ChunkSize splits text into deltas of at most this many bytes (default 8).
	ChunkSize int
}

// ResponsesRequest is one request the server received.
type ResponsesRequest struct {
	Body         []byte           `json:"-"` // as sent
	Model        string           `json:"model"`
	Instructions string           `json:"instructions"`
	Input        []map[string]any `json:"input"`
	Tools        []map[string]any `json:"tools"`
}

// ResponsesServer is a scripted OpenAI Responses API (SSE) server on
// loopback, the wire API codex speaks.
type ResponsesServer struct {
	// URL is the base URL ending in /v1 (a codex model provider base_url).
	URL string

	script[ResponsesTurn, ResponsesRequest]
}

// NewResponsesServer starts a server answering turns in order. Once the
// script is exhausted it answers 500.
func NewResponsesServer(turns ...ResponsesTurn) *ResponsesServer {
	s := &ResponsesServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", s.responses) // a GET (codex probing for a websocket) is 405
	mux.HandleFunc("POST /responses", s.responses)
	s.start(turns, mux)
	s.URL = s.srv.URL + "/v1"
	return s
}

// CodexConfig returns config.toml text that makes codex use this server as
// its model provider "mock" with the given model; the API key is read from
// the env var envKey (codex refuses a provider whose env_key is unset).
func (s *ResponsesServer) CodexConfig(model, envKey string) string {
	return fmt.Sprintf(`model = %q
model_provider = "mock"

[model_providers.mock]
name = "Mock"
base_url = %q
env_key = %q
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, model, s.URL, envKey)
}

func (s *ResponsesServer) responses(w http.ResponseWriter, r *http.Request) {
	var req ResponsesRequest
	req.Body = read(r, &req)
	t, idx, ok := s.take(req, true)
	calls, msg, offered := resolveCalls(t.ToolCalls, func(c *ResponsesToolCall) *string { return &c.Name }, req.Tools)
	t.ToolCalls = calls
	switch {
	case !ok:
		responsesError(w, http.StatusInternalServerError, "", "mockllm: no scripted turn left")
	case t.Status != 0:
		if t.RetryAfter != "" {
			w.Header().Set("Retry-After", t.RetryAfter)
		}
		responsesError(w, t.Status, t.ErrorBody, fmt.Sprintf("mockllm: scripted status %d", t.Status))
	case !offered:
		responsesError(w, http.StatusBadRequest, "", msg)
	default:
		responsesStream(w, t, idx)
	}
}

func responsesStream(w http.ResponseWriter, t ResponsesTurn, idx int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	respID := fmt.Sprintf("resp_%d", idx)
	namedEvent(w, "response.created", map[string]any{"response": map[string]any{"id": respID}})
	out := 0
	// item streams one output item: added, text as deltas (events typ, at
	// index key 0 of the item), done.
	item := func(added, done map[string]any, typ, key, text string) {
		namedEvent(w, "response.output_item.added", map[string]any{"output_index": out, "item": added})
		if added["type"] == "reasoning" { // its text streams into its one summary part
			namedEvent(w, "response.reasoning_summary_part.added", map[string]any{"item_id": added["id"],
				"output_index": out, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
		}
		for _, d := range split(text, t.ChunkSize) {
			namedEvent(w, typ, map[string]any{"item_id": added["id"], "output_index": out, key: 0, "delta": d})
		}
		namedEvent(w, "response.output_item.done", map[string]any{"output_index": out, "item": done})
		out++
	}
	if t.Reasoning != "" {
		id := fmt.Sprintf("rs_%d", idx)
		item(map[string]any{"type": "reasoning", "id": id, "summary": []any{}},
			map[string]any{"type": "reasoning", "id": id, "summary": []any{map[string]any{"type": "summary_text", "text": t.Reasoning}}},
			"response.reasoning_summary_text.delta", "summary_index", t.Reasoning)
	}
	if t.Text != "" {
		id := fmt.Sprintf("msg_%d", idx)
		item(map[string]any{"type": "message", "id": id, "role": "assistant", "content": []any{}},
			map[string]any{"type": "message", "id": id, "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": t.Text}}},
			"response.output_text.delta", "content_index", t.Text)
	}
	for i, tc := range t.ToolCalls {
		added, done := responsesCall(tc, idx, i)
		item(added, done, "", "", "")
	}
	u := cmp.Or(t.Usage, &ResponsesUsage{InputTokens: 20, CachedTokens: 2, OutputTokens: 10, ReasoningTokens: 3})
	namedEvent(w, "response.completed", map[string]any{"response": map[string]any{"id": respID, "usage": map[string]any{
		"input_tokens": u.InputTokens, "input_tokens_details": map[string]any{"cached_tokens": u.CachedTokens},
		"output_tokens": u.OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens": u.InputTokens + u.OutputTokens}}})
}

// responsesCall is a tool call's output item as added and as done.
func responsesCall(tc ResponsesToolCall, idx, i int) (added, done map[string]any) {
	added = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d_%d", idx, i), "call_id": callID(tc.CallID, "call", idx, i), "name": tc.Name}
	if tc.Custom { // added and done alike, with the whole input
		added["type"], added["input"] = "custom_tool_call", tc.Input
		return added, added
	}
	done = maps.Clone(added) // the arguments come with done
	added["arguments"], done["arguments"] = "", tc.Args
	return added, done
}

// namedEvent writes one SSE event with a name, v's type set to it, and
// flushes it.
func namedEvent(w http.ResponseWriter, typ string, v map[string]any) {
	v["type"] = typ
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	flush(w)
}

func responsesError(w http.ResponseWriter, status int, body, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if body == "" {
		typ := "server_error"
		if status == http.StatusTooManyRequests {
			typ = "rate_limit_exceeded"
		}
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": typ}})
		body = string(b)
	}
	_, _ = io.WriteString(w, strings.TrimSpace(body))
}
