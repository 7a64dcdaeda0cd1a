package mockllm

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestResponsesServer_Script(t *testing.T) {
	s := NewResponsesServer(
		ResponsesTurn{Reasoning: "think", Text: "hello world", ToolCalls: []ResponsesToolCall{{Name: "exec_command", Args: `{"cmd":"ls"}`}}},
		ResponsesTurn{Status: http.StatusTooManyRequests, RetryAfter: "1"},
	)
	defer s.Close()
	tests := []struct {
		status int
		want   []string
	}{
		{200, []string{"event: response.created", "response.reasoning_summary_text.delta", `"delta":"hello wo"`,
			`"type":"function_call"`, `"call_id":"call_0_0"`, `"arguments":"{\"cmd\":\"ls\"}"`, "event: response.completed", `"input_tokens":20`}},
		{429, []string{"rate_limit_exceeded"}},
		{500, []string{"no scripted turn left"}},
	}
	for i, tc := range tests {
		resp, err := http.Post(s.URL+"/responses", "application/json", strings.NewReader(`{"model":"m","input":[{"type":"message","content":[{"type":"input_text","text":"hi"}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("turn %d status = %d, want %d", i, resp.StatusCode, tc.status)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("turn %d body lacks %s:\n%s", i, w, body)
			}
		}
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Model != "m" || MessageText(reqs[0].Input[0]) != "hi" {
		t.Errorf("requests = %+v", reqs)
	}
	if !strings.Contains(s.CodexConfig("m", "K"), `base_url = "`+s.URL+`"`) {
		t.Error("CodexConfig lacks base_url")
	}
}
