package mockllm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func openaiPost(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestOpenAIServer_StreamsTextToolCallsAndUsage(t *testing.T) {
	s := NewOpenAIServer(OpenAITurn{Text: "hello world, this is long", ToolCalls: []OpenAIToolCall{{Name: "read_file", Args: `{"path":"a.go"}`}}})
	defer s.Close()
	resp := openaiPost(t, s.URL, `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	var text, args, finish string
	var sawUsage, sawDone bool
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		if line == "" {
			continue
		}
		if line == "[DONE]" {
			sawDone = true
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Function struct{ Arguments string } `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *OpenAIUsage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("bad chunk %q: %v", line, err)
		}
		if c.Usage != nil {
			sawUsage = true
		}
		for _, ch := range c.Choices {
			text += ch.Delta.Content
			for _, tc := range ch.Delta.ToolCalls {
				args += tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if text != "hello world, this is long" || args != `{"path":"a.go"}` || finish != "tool_calls" || !sawUsage || !sawDone {
		t.Fatalf("text=%q args=%q finish=%q usage=%v done=%v", text, args, finish, sawUsage, sawDone)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Model != "m" || MessageText(reqs[0].Messages[0]) != "hi" || !reqs[0].Stream {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestOpenAIServer_NonStreamingAndErrors(t *testing.T) {
	s := NewOpenAIServer(
		OpenAITurn{Status: 429, RetryAfter: "2"},
		OpenAITurn{Text: "ok"},
		OpenAITurn{Reset: true},
	)
	defer s.Close()
	resp := openaiPost(t, s.URL, `{}`)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("status %d retry %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	resp = openaiPost(t, s.URL, `{"stream":false}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(b, []byte(`"content":"ok"`)) {
		t.Fatalf("body %s", b)
	}
	_, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(`{}`))
	if !droppedConn(err) {
		t.Fatalf("want the connection dropped, got %v", err)
	}
	resp = openaiPost(t, s.URL, `{}`)
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Fatalf("exhausted script: status %d", resp.StatusCode)
	}
}

func TestOpenAIServer_RejectStreamAndModels(t *testing.T) {
	s := NewOpenAIServer(OpenAITurn{Text: "x"})
	defer s.Close()
	s.SetRejectStream(true)
	resp := openaiPost(t, s.URL, `{"stream":true}`)
	resp.Body.Close()
	if resp.StatusCode != 400 || s.Remaining() != 1 {
		t.Fatalf("status %d remaining %d", resp.StatusCode, s.Remaining())
	}
	resp, err := http.Get(s.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(b, []byte("mock-model")) {
		t.Fatalf("models %s", b)
	}
}

// droppedConn reports whether err is the connection closing under a
// request: end of stream, or a reset on read (ECONNRESET on Unix,
// WSAECONNRESET on Windows).
func droppedConn(err error) bool {
	var op *net.OpError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &op) && op.Op == "read")
}
