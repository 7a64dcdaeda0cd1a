package mockllm

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// anthropicSSE posts body and returns the SSE events (type + data).
func anthropicSSE(t *testing.T, url, body string) (events []string, datas []map[string]any, status int) {
	t.Helper()
	resp, err := http.Post(url+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if ev, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, ev)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("bad data %q", d)
			}
			datas = append(datas, m)
		}
	}
	return events, datas, resp.StatusCode
}

func TestAnthropicServer_StreamsTurns(t *testing.T) {
	s := NewAnthropicServer(
		AnthropicTurn{Thinking: "hmm", Text: "Running it.", ToolUses: []AnthropicToolUse{{Name: "Bash", Input: `{"command":"echo hi"}`}}},
		AnthropicTurn{Text: "Done."},
	)
	defer s.Close()
	events, datas, _ := anthropicSSE(t, s.URL, `{"model":"claude-x","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if events[0] != "message_start" || events[len(events)-1] != "message_stop" {
		t.Fatalf("events = %v", events)
	}
	var text, input strings.Builder
	var stop string
	for _, d := range datas {
		if delta, ok := d["delta"].(map[string]any); ok {
			switch delta["type"] {
			case "text_delta":
				text.WriteString(delta["text"].(string))
			case "input_json_delta":
				input.WriteString(delta["partial_json"].(string))
			}
			if sr, ok := delta["stop_reason"].(string); ok {
				stop = sr
			}
		}
	}
	if text.String() != "Running it." || input.String() != `{"command":"echo hi"}` || stop != "tool_use" {
		t.Errorf("text=%q input=%q stop=%q", text.String(), input.String(), stop)
	}
	_, datas, _ = anthropicSSE(t, s.URL, `{"stream":true}`)
	if datas[len(datas)-2]["delta"].(map[string]any)["stop_reason"] != "end_turn" {
		t.Errorf("second turn stop = %v", datas[len(datas)-2])
	}
	reqs := s.Requests()
	if len(reqs) != 2 || !reqs[0].Beta || reqs[0].Model != "claude-x" || len(reqs[0].Messages) != 1 {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestAnthropicServer_ErrorsAndExhaustion(t *testing.T) {
	s := NewAnthropicServer(AnthropicTurn{Status: 529, ErrorType: "overloaded_error"})
	defer s.Close()
	for _, want := range []int{529, 400} {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Type  string `json:"type"`
			Error struct{ Type, Message string }
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != want || body.Type != "error" || body.Error.Message == "" {
			t.Errorf("status %d body %+v, want %d", resp.StatusCode, body, want)
		}
	}
}

func TestAnthropicServer_NonStreaming(t *testing.T) {
	s := NewAnthropicServer(AnthropicTurn{Text: "hello"})
	defer s.Close()
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(`{"stream":false}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		Content []struct{ Type, Text string }
	}
	_ = json.NewDecoder(resp.Body).Decode(&m)
	if len(m.Content) != 1 || m.Content[0].Text != "hello" {
		t.Errorf("message = %+v", m)
	}
}
