// Package mockllm holds scripted, loopback-only mock LLM servers, one file per
// wire API, for tests and local e2e runs. No server here touches a network.
package mockllm

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// OpenAIToolCall is one function call the scripted assistant makes.
type OpenAIToolCall struct {
	ID   string // default "call_<turn>_<index>"
	Name string
	Args string // JSON arguments, sent split across chunks when streaming
}

// OpenAIUsage is the token usage a turn reports.
type OpenAIUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// OpenAITurn is one scripted answer to one POST /chat/completions.
type OpenAITurn struct {
	Text      string
	Reasoning string // sent as delta.reasoning_content before Text
	ToolCalls []OpenAIToolCall
	// FinishReason defaults to "tool_calls" when ToolCalls is set, else "stop".
	FinishReason string
	Usage        *OpenAIUsage // default: small non-zero counts

	// Status, when set (e.g. 429, 500), answers with that HTTP status and an
	// OpenAI-style error body (ErrorBody if set); RetryAfter sets the header.
	Status     int
	RetryAfter string
	ErrorBody  string
	// Reset closes the connection without a response (a connection reset).
	Reset bool
	// Delay waits before answering (aborted when the client goes away).
	Delay time.Duration
	// Hang sends the first chunk and any Text (if streaming) then blocks
	// until the client disconnects or the server closes.
	Hang bool
	// Raw, when set, is written verbatim as the response body (e.g. a
	// malformed SSE stream), with Content-Type text/event-stream.
	Raw string
	// ChunkSize splits text into deltas of at most this many bytes (default 8).
	ChunkSize int
}

// OpenAIRequest is one request the server received.
type OpenAIRequest struct {
	Body          []byte `json:"-"` // as sent
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []map[string]any `json:"messages"`
	Tools    []map[string]any `json:"tools"`
}

// OpenAIServer is a scripted OpenAI Chat Completions server on loopback.
type OpenAIServer struct {
	// URL is the base URL, ending in /v1 (what OPENAI_BASE_URL expects).
	URL string

	script[OpenAITurn, OpenAIRequest]
	rejectStream atomic.Bool
	hanging      chan struct{}
	hangOnce     sync.Once
}

// NewOpenAIServer starts a server that answers requests with turns in order
// and lists the one model "mock-model". When the script runs out it answers
// 500 "mockllm: script exhausted".
func NewOpenAIServer(turns ...OpenAITurn) *OpenAIServer {
	s := &OpenAIServer{hanging: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /chat/completions", s.chat)
	mux.HandleFunc("/v1/models", listModels)
	mux.HandleFunc("/models", listModels)
	s.start(turns, mux)
	s.URL = s.srv.URL + "/v1"
	return s
}

// Hanging is closed once a Hang turn has sent its first chunk and blocks:
// the client is then in the middle of a streamed answer.
func (s *OpenAIServer) Hanging() <-chan struct{} { return s.hanging }

// SetRejectStream makes every stream:true request fail with 400, as some
// servers do, without consuming a turn.
func (s *OpenAIServer) SetRejectStream(reject bool) { s.rejectStream.Store(reject) }

func listModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list",
		"data": []any{map[string]any{"id": "mock-model", "object": "model", "owned_by": "mockllm"}}})
}

func (s *OpenAIServer) chat(w http.ResponseWriter, r *http.Request) {
	var req OpenAIRequest
	req.Body = read(r, &req)
	reject := req.Stream && s.rejectStream.Load()
	turn, idx, ok := s.take(req, !reject)
	switch { // a rejection consumes no turn
	case reject:
		turn = OpenAITurn{Status: http.StatusBadRequest, ErrorBody: "stream is not supported"}
	case !ok:
		turn = OpenAITurn{Status: http.StatusInternalServerError, ErrorBody: "mockllm: script exhausted"}
	}
	select {
	case <-time.After(turn.Delay):
	case <-r.Context().Done():
		return
	}
	calls, msg, offered := resolveCalls(turn.ToolCalls, func(c *OpenAIToolCall) *string { return &c.Name }, req.Tools)
	turn.ToolCalls = calls
	switch {
	case !offered:
		writeJSON(w, http.StatusBadRequest, errBody(msg))
	case turn.Reset:
		resetConn(w)
	case turn.Status != 0:
		if turn.RetryAfter != "" {
			w.Header().Set("Retry-After", turn.RetryAfter)
		}
		writeJSON(w, turn.Status, errBody(cmp.Or(turn.ErrorBody, http.StatusText(turn.Status))))
	case turn.Raw != "":
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, turn.Raw)
	case req.Stream:
		s.stream(w, r, turn, idx, req.StreamOptions.IncludeUsage)
	default:
		writeJSON(w, http.StatusOK, completion(turn, idx))
	}
}

func (s *OpenAIServer) stream(w http.ResponseWriter, r *http.Request, t OpenAITurn, idx int, usage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	id := "chatcmpl-mock-" + strconv.Itoa(idx)
	chunk := func(v map[string]any) {
		v["id"], v["object"] = id, "chat.completion.chunk"
		b, _ := json.Marshal(v)
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
	}
	send := func(delta map[string]any, finish any) {
		chunk(map[string]any{"model": "mock-model", "choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, part := range split(t.Reasoning, t.ChunkSize) {
		send(map[string]any{"reasoning_content": part}, nil)
	}
	for _, part := range split(t.Text, t.ChunkSize) {
		send(map[string]any{"content": part}, nil)
	}
	if t.Hang {
		flush(w)
		s.hangOnce.Do(func() { close(s.hanging) })
		<-r.Context().Done()
		return
	}
	for i, tc := range t.ToolCalls {
		send(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": callID(tc.ID, "call", idx, i), "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}}}, nil)
		half := len(tc.Args) / 2
		for _, part := range []string{tc.Args[:half], tc.Args[half:]} {
			if part != "" {
				send(map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]any{"arguments": part}}}}, nil)
			}
		}
	}
	send(map[string]any{}, finishReason(t))
	if usage {
		chunk(map[string]any{"choices": []any{}, "usage": usageOf(t)})
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	flush(w)
}

func completion(t OpenAITurn, idx int) map[string]any {
	msg := map[string]any{"role": "assistant", "content": t.Text}
	if t.Reasoning != "" {
		msg["reasoning_content"] = t.Reasoning
	}
	if len(t.ToolCalls) > 0 {
		calls := make([]map[string]any, len(t.ToolCalls))
		for i, tc := range t.ToolCalls {
			calls[i] = map[string]any{"id": callID(tc.ID, "call", idx, i), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Args}}
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": "chatcmpl-mock-" + strconv.Itoa(idx), "object": "chat.completion", "model": "mock-model",
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finishReason(t)}},
		"usage":   usageOf(t)}
}

// callID is a scripted tool call's id, else prefix and its place: the
// turn's index and the call's.
func callID(id, prefix string, turn, i int) string {
	return cmp.Or(id, fmt.Sprintf("%s_%d_%d", prefix, turn, i))
}

func finishReason(t OpenAITurn) string {
	return stopOr(t.FinishReason, len(t.ToolCalls) > 0, "tool_calls", "stop")
}

// stopOr is the stop reason a turn sets, else onTools when it calls tools,
// else end.
func stopOr(set string, tools bool, onTools, end string) string {
	if tools {
		end = onTools
	}
	return cmp.Or(set, end)
}

func usageOf(t OpenAITurn) OpenAIUsage {
	if t.Usage != nil {
		return *t.Usage
	}
	out := int64(len(t.Text)/4 + 1)
	return OpenAIUsage{PromptTokens: 10, CompletionTokens: out, TotalTokens: 10 + out}
}

// split cuts s into chunks of n bytes (8 when n is not set), each grown
// to the end of the character it cuts into.
func split(s string, n int) []string {
	if n <= 0 {
		n = 8
	}
	var out []string
	for s != "" {
		cut := min(n, len(s))
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out, s = append(out, s[:cut]), s[cut:]
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func errBody(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "mockllm_error"}}
}

func flush(w http.ResponseWriter) { _ = http.NewResponseController(w).Flush() }

// resetConn drops the TCP connection with an RST so the client sees a
// connection reset rather than a clean EOF.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.(*net.TCPConn).SetLinger(0)
	_ = conn.Close()
}

// MessageText returns the string content of a recorded message (joining
// text parts when content is an array).
func MessageText(m map[string]any) string {
	if s, ok := m["content"].(string); ok {
		return s
	}
	var b strings.Builder
	parts, _ := m["content"].([]any)
	for _, p := range parts {
		part, _ := p.(map[string]any)
		text, _ := part["text"].(string)
		b.WriteString(text)
	}
	return b.String()
}
