package streamparse

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// qoderJoined concatenates the text and the thought events.
func qoderJoined(evs []adapters.Event) (text, thought string) {
	var t, th strings.Builder
	for _, e := range evs {
		switch e.Type {
		case adapters.EventText:
			t.WriteString(e.Text)
		case adapters.EventThought:
			th.WriteString(e.Text)
		}
	}
	return t.String(), th.String()
}

// qodercli streams deltas without message_start and then repeats every
// block in an assistant record; each piece must reach the user once.
func TestDecodeQoder_StreamedTextOnce(t *testing.T) {
	tests := []struct{ fixture, text, thought string }{
		{"synthetic-text", "Hello from qoder.", ""},
		{"synthetic-thinking", "Hi after thinking.", "The user wants a greeting; keep it short."},
		{"synthetic-rate-limit", "Answer after the retry.", ""},
		{"synthetic-long-line", "Printing a lot. That was a lot of x.", ""},
		{"synthetic-error", "API Error: 500 upstream model service unavailable", ""},
		{"streamjson-tool-partial", "I'll run a command. Done: the tool said hello.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", "qodercli", tt.fixture, "stream.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			text, thought := qoderJoined(DecodeQoder(data))
			if text != tt.text || thought != tt.thought {
				t.Errorf("text = %q, thought = %q; want %q, %q", text, thought, tt.text, tt.thought)
			}
		})
	}
}

func qoderDelta(index int, kind, text string) string {
	field := "text"
	if kind == "thinking_delta" {
		field = "thinking"
	}
	return `{"type":"stream_event","event":{"type":"content_block_delta","index":` + itoa(index) +
		`,"delta":{"type":"` + kind + `","` + field + `":` + qoderQuote(text) + `}},"parent_tool_use_id":null}`
}

func qoderAssistant(id string, blocks ...string) string {
	return `{"type":"assistant","message":{"id":"` + id + `","role":"assistant","content":[` +
		strings.Join(blocks, ",") + `]},"parent_tool_use_id":null}`
}

func qoderQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func qoderText(s string) string  { return `{"type":"text","text":` + qoderQuote(s) + `}` }
func qoderThink(s string) string { return `{"type":"thinking","thinking":` + qoderQuote(s) + `}` }

func TestQoderDecoder_ClaimsStreamedBlocks(t *testing.T) {
	tests := []struct {
		name          string
		lines         []string
		text, thought string
	}{
		{"no deltas: block shown", []string{qoderAssistant("m", qoderText("whole"))}, "whole", ""},
		{"stream cut short: rest shown", []string{
			qoderDelta(0, "text_delta", "Hel"), qoderAssistant("m", qoderText("Hello")),
		}, "Hello", ""},
		{"thinking and text in one record", []string{
			qoderDelta(0, "thinking_delta", "hm"), qoderDelta(1, "text_delta", "A"), qoderDelta(1, "text_delta", "B"),
			qoderAssistant("m", qoderThink("hm"), qoderText("AB")),
		}, "AB", "hm"},
		{"two text blocks", []string{
			qoderDelta(0, "text_delta", "one"), qoderDelta(1, "text_delta", "two"),
			qoderAssistant("m", qoderText("one")), qoderAssistant("m", qoderText("two")),
		}, "onetwo", ""},
		{"second message not hidden by the first", []string{
			qoderDelta(0, "text_delta", "first"), qoderAssistant("m1", qoderText("first")),
			qoderAssistant("m2", qoderText("second")),
		}, "firstsecond", ""},
		{"unrelated deltas do not hide a block", []string{
			qoderDelta(0, "text_delta", "abc"), qoderAssistant("m", qoderText("xyz")),
		}, "abcxyz", ""},
		{"streamed with trailing newline", []string{
			qoderDelta(0, "text_delta", "done\n"), qoderAssistant("m", qoderText("done")),
		}, "done\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewQoderDecoder()
			var evs []adapters.Event
			for _, l := range tt.lines {
				evs = append(evs, d.Decode([]byte(l))...)
			}
			text, thought := qoderJoined(evs)
			if text != tt.text || thought != tt.thought {
				t.Errorf("text = %q, thought = %q; want %q, %q", text, thought, tt.text, tt.thought)
			}
		})
	}
}

func TestQoderDecoder_ErrorsNameQodercli(t *testing.T) {
	lines := []string{
		`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":3,"error_status":429,"error":"rate_limit"}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","rateLimitType":"five_hour"}}`,
		`{"type":"result","subtype":"error_during_execution","is_error":true,"result":""}`,
	}
	d := NewQoderDecoder()
	n := 0
	for _, l := range lines {
		for _, e := range d.Decode([]byte(l)) {
			if e.Type != adapters.EventError {
				continue
			}
			n++
			if !strings.HasPrefix(e.Error.Message, "qodercli: ") {
				t.Errorf("message %q does not name qodercli", e.Error.Message)
			}
		}
	}
	if n != len(lines) {
		t.Fatalf("got %d errors, want %d", n, len(lines))
	}
}
