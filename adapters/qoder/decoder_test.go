package qoder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
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
		{"streamjson-text", "Hello from qoder.", ""},
		{"synthetic-thinking", "Hi after thinking.", "The user wants a greeting; keep it short."},
		{"synthetic-rate-limit", "Answer after the retry.", ""},
		{"streamjson-long-line", "Printing a lot. " + strings.Repeat("y", 1_000_000) + " That was a lot.", ""},
		{"streamjson-error", "", ""}, // the error text is the fatal error, not an answer
		{"streamjson-tool-partial", "I'll run a command. Done: the tool said hello.", ""},
		{"streamjson-tool", "I'll run a command. Done: it exited 3.", ""},
		{"streamjson-cancel-mid-tool", "Sleeping. ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.fixture, "stream.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			text, thought := qoderJoined(DecodeQoder(data))
			if text != tt.text || thought != tt.thought {
				t.Errorf("text = %.200q, thought = %q; want %.200q, %q", text, thought, tt.text, tt.thought)
			}
		})
	}
}

func qoderDelta(index int, kind, text string) string {
	field := "text"
	if kind == "thinking_delta" {
		field = "thinking"
	}
	return `{"type":"stream_event","event":{"type":"content_block_delta","index":` + strconv.Itoa(index) +
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

// qodercli's model-error path (recorded: streamjson-error) is an assistant
// message from model "<synthetic>" with the error text, then an error
// result repeating it. The text must reach the user once, as the error; a
// "<synthetic>" message nothing repeats is still shown.
func TestQoderDecoder_SyntheticMessageShownOnce(t *testing.T) {
	synthetic := `{"type":"assistant","message":{"id":"s","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"Model failed."}]},"parent_tool_use_id":null}`
	errResult := `{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["Model failed."]}`
	okResult := `{"type":"result","subtype":"success","is_error":false,"result":"x"}`
	tests := []struct {
		name  string
		lines []string
		want  string // event types, text in brackets
	}{
		{"repeated by the error result", []string{synthetic, errResult}, "error done"},
		{"blank and status lines in between", []string{synthetic, "", `{"type":"system","subtype":"status"}`, errResult}, "error done"},
		{"not repeated", []string{synthetic, okResult}, "text[Model failed.] done"},
		{"other error", []string{synthetic, `{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["other"]}`},
			"text[Model failed.] error done"},
		{"end of stream", []string{synthetic}, "text[Model failed.]"},
		{"model answer is not held", []string{strings.Replace(synthetic, "<synthetic>", "auto", 1), errResult}, "text[Model failed.] error done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range DecodeQoder([]byte(strings.Join(tt.lines, "\n"))) {
				s := string(e.Type)
				if e.Type == adapters.EventText {
					s += "[" + e.Text + "]"
				}
				if e.Type != adapters.EventUsage {
					got = append(got, s)
				}
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("events %q, want %q", g, tt.want)
			}
		})
	}
}

// TestQoderFixtures_Behaviour checks what each qodercli fixture is for,
// beyond its golden. streamjson-* and acp-* (except tool-partial) are
// recorded from qodercli 1.1.52 by adapters/qoder/record_test.go; the
// synthetic-* ones are shapes its offline hook cannot produce (README.md).
func TestQoderFixtures_Behaviour(t *testing.T) {
	xs := func(e adapters.Event, n int) bool { // a tool output of n x, maybe fenced
		return e.Type == adapters.EventToolUpdate && len(e.Tool.Content) == 1 &&
			strings.Count(e.Tool.Content[0].Text, "x") == n
	}
	tests := []struct {
		fixture string
		ok      []func(adapters.Event) bool // each must match some event
		last    adapters.StopReason
	}{
		{"streamjson-text", qoderWant(func(e adapters.Event) bool {
			return e.Type == adapters.EventSessionInfo && e.Session.AgentSessionID != ""
		}, func(e adapters.Event) bool { return e.Type == adapters.EventText && e.Text == "qoder." }), adapters.StopEndTurn},
		{"synthetic-thinking", qoderWant(func(e adapters.Event) bool {
			return e.Type == adapters.EventThought && strings.Contains(e.Text, "greeting")
		}), adapters.StopEndTurn},
		{"streamjson-error", qoderWant(func(e adapters.Event) bool {
			return e.Type == adapters.EventError && e.Error.Fatal && e.Error.Message == "qodercli: The model service did not respond in time. Please try again."
		}), adapters.StopEndTurn},
		{"synthetic-rate-limit", qoderWant(func(e adapters.Event) bool {
			return e.Type == adapters.EventError && !e.Error.Fatal && e.Error.Code == adapters.CodeRateLimit
		}), adapters.StopEndTurn},
		// qodercli keeps the last 30000 characters of a command's output.
		{"streamjson-long-line", qoderWant(func(e adapters.Event) bool { return xs(e, 30000) },
			func(e adapters.Event) bool { return e.Type == adapters.EventText && len(e.Text) == 1_000_000 }), adapters.StopEndTurn},
		{"streamjson-tool-partial", qoderWant(func(e adapters.Event) bool { return e.Type == adapters.EventToolCall && e.Tool.Name == "Bash" }), adapters.StopEndTurn},
		{"streamjson-tool", qoderWant(func(e adapters.Event) bool {
			return e.Type == adapters.EventToolCall && e.Tool.Kind == adapters.KindExecute && e.Tool.Title == "echo hello-from-tool; echo to-stderr >&2; exit 3"
		}, func(e adapters.Event) bool {
			return e.Type == adapters.EventToolUpdate && e.Tool.Status == adapters.StatusFailed &&
				e.Tool.Content[0].Text == "Exit code 3\nhello-from-tool\nto-stderr" && strings.Contains(string(e.Tool.RawOutput), `"exitCode":3`)
		}), adapters.StopEndTurn},
		// SIGINT while Bash runs: qodercli reports the tool interrupted
		// (is_error) and ends with terminal_reason aborted_tools.
		{"streamjson-cancel-mid-tool", qoderWant(func(e adapters.Event) bool {
			return e.Type == adapters.EventToolUpdate && e.Tool.Status == adapters.StatusFailed && strings.Contains(string(e.Tool.RawOutput), `"kind":"cancelled"`)
		}), adapters.StopCancelled},
		// ACP (`qodercli --acp`, default mode: Bash asks permission).
		{"acp-text", qoderWant(func(e adapters.Event) bool { return e.Type == adapters.EventText && e.Text == "qoder." }), adapters.StopEndTurn},
		{"acp-tool", qoderWant(func(e adapters.Event) bool {
			return e.Type == adapters.EventPermission && e.Permission.Tool.Kind == adapters.KindExecute
		}, func(e adapters.Event) bool {
			return e.Type == adapters.EventToolUpdate && e.Tool.Status == adapters.StatusFailed && strings.Contains(e.Tool.Content[0].Text, "hello-from-tool")
		}), adapters.StopEndTurn},
		{"acp-long-line", qoderWant(func(e adapters.Event) bool { return xs(e, 30000) },
			func(e adapters.Event) bool { return e.Type == adapters.EventText && len(e.Text) == 1_000_000 }), adapters.StopEndTurn},
		{"acp-error", qoderWant(func(e adapters.Event) bool {
			return e.Type == adapters.EventError && e.Error.Fatal && strings.Contains(e.Error.Message, "did not respond in time")
		}), adapters.StopEndTurn},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			evs := qoderFixture(t, tt.fixture)
			for i, ok := range tt.ok {
				if !slices.ContainsFunc(evs, ok) {
					t.Errorf("check %d: no matching event among %d", i, len(evs))
				}
			}
			if last := evs[len(evs)-1]; last.Type != adapters.EventDone || last.StopReason != tt.last {
				t.Errorf("last event %s %s, want done %s", last.Type, last.StopReason, tt.last)
			}
		})
	}
}

// After session/cancel qodercli answers the prompt "cancelled" and sends no
// update for the running tool: the call stays pending in the stream (the
// ACP client marks unfinished calls itself after a cancel).
func TestQoderFixtures_ACPCancelMidTool(t *testing.T) {
	evs := qoderFixture(t, "acp-cancel-mid-tool")
	var types []string
	for _, e := range evs {
		if e.Type == adapters.EventToolCall || e.Type == adapters.EventPermission || e.Type == adapters.EventToolUpdate || e.Type == adapters.EventDone {
			s := string(e.Type)
			if e.Tool != nil {
				s += ":" + string(e.Tool.Status)
			}
			if e.Type == adapters.EventDone {
				s += ":" + string(e.StopReason)
			}
			types = append(types, s)
		}
	}
	if got := strings.Join(types, " "); got != "tool_call:pending permission done:cancelled" {
		t.Errorf("events %q", got)
	}
}

func qoderWant(fs ...func(adapters.Event) bool) []func(adapters.Event) bool { return fs }

// qoderFixture decodes testdata/qodercli/<name> with the decoder of its
// channel (acp-* are ACP streams).
func qoderFixture(t *testing.T, name string) []adapters.Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name, "stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(name, "acp-") {
		return DecodeACP(data)
	}
	return DecodeQoder(data)
}

func TestQoderFixtures_Golden(t *testing.T) {
	fixture.Golden(t, DecodeQoder, *update, "testdata/streamjson-*", "testdata/synthetic-*")
	fixture.Golden(t, DecodeACP, *update, "testdata/acp-*")
}

func TestQuirks_ErrorChunk(t *testing.T) {
	for text, want := range map[string]string{"[Error] quota  exceeded\n": "quota exceeded", "Error: x": "", "[Error]": ""} {
		if got := errorChunk(text); got != want {
			t.Errorf("errorChunk(%q) = %q, want %q", text, got, want)
		}
	}
}

func FuzzQoder(f *testing.F) {
	fixture.Seeds(f, "testdata/*")
	f.Fuzz(func(t *testing.T, line []byte) {
		if _, err := json.Marshal(NewQoderDecoder().Decode(line)); err != nil {
			t.Fatalf("events not marshalable: %v", err)
		}
	})
}
