package mockllm

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// GeminiToolCall is one functionCall part the scripted model emits.
type GeminiToolCall struct {
	Name string
	Args string // JSON object; default {}
}

// GeminiTurn is one scripted answer to one streamGenerateContent (or
// non-JSON generateContent) request.
type GeminiTurn struct {
	Thought   string // sent first as a {"thought":true} part
	Text      string
	ToolCalls []GeminiToolCall
	// Status, when set, answers with that HTTP status and a Google API
	// error body.
	Status int
	// Hang sends the first chunk then blocks until the client goes away or
	// the server closes (for cancellation tests).
	Hang bool
}

// GeminiRequest is one request the server received.
type GeminiRequest struct {
	Body     []byte           `json:"-"` // as sent
	Model    string           `json:"-"`
	Method   string           `json:"-"` // "streamGenerateContent", "generateContent", "countTokens"
	Contents []map[string]any `json:"contents"`
	Tools    []map[string]any `json:"tools"`
	Config   map[string]any   `json:"generationConfig"`
}

// GeminiServer is a scripted Gemini API (generativelanguage v1beta) server
// on loopback: set GOOGLE_GEMINI_BASE_URL to URL.
type GeminiServer struct {
	URL string

	script[GeminiTurn, GeminiRequest]
}

// NewGeminiServer starts a server answering model calls with turns in
// order. Router/classifier calls (non-streaming, JSON response mime type)
// and countTokens get canned answers and consume no turn. When the script
// runs out it answers 500.
func NewGeminiServer(turns ...GeminiTurn) *GeminiServer {
	s := &GeminiServer{}
	s.start(turns, http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	return s
}

// ModelRequests returns only the scripted (turn-consuming) requests.
func (s *GeminiServer) ModelRequests() []GeminiRequest {
	return slices.DeleteFunc(s.Requests(), func(r GeminiRequest) bool { return !r.scripted() })
}

// scripted reports whether r is a model call, which consumes a turn (a
// router/classifier generateContent asks for JSON instead).
func (r GeminiRequest) scripted() bool {
	mt, _ := r.Config["responseMimeType"].(string)
	return r.Method == "streamGenerateContent" || r.Method == "generateContent" && mt != "application/json"
}

func (s *GeminiServer) handle(w http.ResponseWriter, r *http.Request) {
	var req GeminiRequest
	req.Body = read(r, &req)
	if i := strings.LastIndex(r.URL.Path, ":"); i >= 0 {
		req.Method = r.URL.Path[i+1:]
		req.Model = r.URL.Path[strings.LastIndex(r.URL.Path[:i], "/")+1 : i]
	}
	scripted := req.scripted()
	t, _, ok := s.take(req, scripted)
	switch {
	case req.Method == "countTokens":
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": 10})
	case !scripted && req.Method == "generateContent":
		writeJSON(w, http.StatusOK, geminiResponse([]map[string]any{{"text": `{"complexity_reasoning":"mock","complexity_score":10}`}}, true))
	case !scripted:
		geminiError(w, http.StatusNotFound, "mockllm: unknown path "+r.URL.Path, "NOT_FOUND")
	case !ok:
		geminiError(w, http.StatusInternalServerError, "mockllm: script exhausted", "INTERNAL")
	case t.Status != 0:
		geminiError(w, t.Status, "mockllm: forced error", "INVALID_ARGUMENT")
	case req.Method == "generateContent":
		writeJSON(w, http.StatusOK, geminiResponse(slices.Concat(geminiChunks(t)...), true))
	default:
		geminiStream(w, r, t)
	}
}

func geminiStream(w http.ResponseWriter, r *http.Request, t GeminiTurn) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunks := geminiChunks(t)
	for i, parts := range chunks {
		b, _ := json.Marshal(geminiResponse(parts, i == len(chunks)-1 && !t.Hang))
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		flush(w)
		if t.Hang {
			<-r.Context().Done()
			return
		}
	}
}

// geminiChunks splits a turn into the parts of each SSE chunk.
func geminiChunks(t GeminiTurn) [][]map[string]any {
	var chunks [][]map[string]any
	if t.Thought != "" {
		chunks = append(chunks, []map[string]any{{"text": t.Thought, "thought": true}})
	}
	for _, part := range split(t.Text, 0) {
		chunks = append(chunks, []map[string]any{{"text": part}})
	}
	if len(t.ToolCalls) > 0 {
		var parts []map[string]any
		for _, tc := range t.ToolCalls {
			args := json.RawMessage(cmp.Or(tc.Args, "{}"))
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": tc.Name, "args": args}})
		}
		chunks = append(chunks, parts)
	}
	if len(chunks) == 0 {
		chunks = append(chunks, []map[string]any{{"text": ""}})
	}
	return chunks
}

// geminiResponse is one response of parts; the final one carries the
// finish reason and the usage.
func geminiResponse(parts []map[string]any, final bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	resp := map[string]any{"candidates": []any{cand}, "modelVersion": "mock"}
	if final {
		cand["finishReason"] = "STOP"
		resp["usageMetadata"] = map[string]any{"promptTokenCount": 42, "candidatesTokenCount": 17, "totalTokenCount": 59}
	}
	return resp
}

func geminiError(w http.ResponseWriter, code int, msg, status string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}
