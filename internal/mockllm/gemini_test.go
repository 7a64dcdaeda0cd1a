package mockllm

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func geminiPost(t *testing.T, url, body string) (*http.Response, []map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var chunks []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "data: ") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line[6:]), &m); err != nil {
				t.Fatal(err)
			}
			chunks = append(chunks, m)
		} else if strings.HasPrefix(line, "{") {
			var m map[string]any
			_ = json.Unmarshal([]byte(line), &m)
			chunks = append(chunks, m)
		}
	}
	return resp, chunks
}

func TestGeminiServer_Script(t *testing.T) {
	s := NewGeminiServer(
		GeminiTurn{Thought: "hm", Text: "Running it", ToolCalls: []GeminiToolCall{{Name: "run_shell_command", Args: `{"command":"echo hi"}`}}},
		GeminiTurn{Status: 400},
	)
	defer s.Close()
	base := s.URL + "/v1beta/models/mock"
	// Router calls consume no turn.
	_, router := geminiPost(t, base+":generateContent", `{"generationConfig":{"responseMimeType":"application/json"}}`)
	if len(router) != 1 || s.Remaining() != 2 {
		t.Fatalf("router answer %v, remaining %d", router, s.Remaining())
	}
	resp, chunks := geminiPost(t, base+":streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"x","response":{"output":"ok"}}}]}]}`)
	if resp.StatusCode != 200 || len(chunks) != 4 {
		t.Fatalf("status %d, %d chunks: %v", resp.StatusCode, len(chunks), chunks)
	}
	lastChunk, _ := json.Marshal(chunks[3])
	if !strings.Contains(string(lastChunk), `"functionCall":{"args":{"command":"echo hi"},"name":"run_shell_command"}`) ||
		!strings.Contains(string(lastChunk), `"finishReason":"STOP"`) {
		t.Fatalf("last chunk = %s", lastChunk)
	}
	if first, _ := json.Marshal(chunks[0]); !strings.Contains(string(first), `"thought":true`) {
		t.Fatalf("first chunk = %s", first)
	}
	resp, _ = geminiPost(t, base+":streamGenerateContent?alt=sse", `{}`)
	if resp.StatusCode != 400 {
		t.Fatalf("forced error status = %d", resp.StatusCode)
	}
	resp, _ = geminiPost(t, base+":streamGenerateContent?alt=sse", `{}`)
	if resp.StatusCode != 500 {
		t.Fatalf("exhausted status = %d", resp.StatusCode)
	}
	reqs := s.ModelRequests()
	if len(reqs) != 3 || reqs[0].Model != "mock" || len(reqs[0].Contents) != 1 {
		t.Fatalf("requests = %+v", reqs)
	}
}
