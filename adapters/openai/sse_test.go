package openai

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/hubdev/hub/adapters"
)

const (
	hello = `{"choices":[{"delta":{"content":"hel"}}]}`
	world = `{"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}`
)

// sse writes events (each a list of lines) with end as every line end.
func sse(end string, events ...[]string) string {
	var b strings.Builder
	for _, ev := range events {
		for _, l := range ev {
			b.WriteString(l + end)
		}
		b.WriteString(end)
	}
	return b.String()
}

func TestReadStream_Framing(t *testing.T) {
	tests := []struct {
		name, stream string
		want         string
	}{
		{"LF", sse("\n", []string{"data: " + hello}, []string{"data: " + world}, []string{"data: [DONE]"}), "hello"},
		{"CRLF", sse("\r\n", []string{"data: " + hello}, []string{"data: " + world}, []string{"data: [DONE]"}), "hello"},
		{"CR only", sse("\r", []string{"data: " + hello}, []string{"data: " + world}, []string{"data: [DONE]"}), "hello"},
		{"mixed ends", "data: " + hello + "\r\n\n" + "data: " + world + "\r\r" + "data: [DONE]\n\r\n", "hello"},
		{"BOM", "\ufeff" + sse("\n", []string{"data: " + hello}, []string{"data: " + world}), "hello"},
		{"BOM and CR", "\ufeff" + sse("\r", []string{"data: " + hello}, []string{"data: " + world}), "hello"},
		{"multi-line data joined with LF", sse("\n",
			[]string{`data: {"choices":[{"delta":`, `data: {"content":"a\nb"}}]}`},
			[]string{`data: {"choices":[{"delta":{},`, `data:"finish_reason":"stop"}]}`}), "a\nb"},
		{"multi-line data, CR only", sse("\r",
			[]string{`data: {"choices":[{"delta":`, `data: {"content":"hi"},"finish_reason":"stop"}]}`}), "hi"},
		{"comments and other fields", sse("\n",
			[]string{": keep-alive", "event: message", "id: 1", "retry: 10", "data: " + hello},
			[]string{":", "data: " + world}), "hello"},
		{"no space after data:", sse("\n", []string{"data:" + hello}, []string{"data:" + world}), "hello"},
		{"two chunks in one event", sse("\n", []string{"data: " + hello, "data: " + world}), "hello"},
		{"last event without blank line", "data: " + hello + "\n\ndata: " + world, "hello"},
		{"DONE without blank line", sse("\n", []string{"data: " + hello}, []string{"data: " + world}) + "data: [DONE]", "hello"},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			name := tt.name
			if oneByte {
				name += ", one byte per read"
			}
			t.Run(name, func(t *testing.T) {
				r := iotestReader(tt.stream, oneByte)
				var streamed strings.Builder
				rep, err := readStream(r, func(ev adapters.Event) {
					if ev.Type == adapters.EventText {
						streamed.WriteString(ev.Text)
					}
				})
				if err != nil {
					t.Fatalf("readStream: %v", err)
				}
				if rep.Text != tt.want || streamed.String() != tt.want || rep.Finish != "stop" {
					t.Errorf("reply text %q, streamed %q, finish %q; want %q and stop", rep.Text, streamed.String(), rep.Finish, tt.want)
				}
			})
		}
	}
}

func TestReadStream_Refuses(t *testing.T) {
	tests := []struct {
		name, stream string
	}{
		{"a line that is no SSE field", "data: " + hello + "\n\n<html>\n\n"},
		{"data that is not JSON", "data: {not json\n\n"},
		{"a split value left open", "data: {\"choices\":\n\n"},
		{"end before finish_reason", sse("\r", []string{"data: " + hello})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := readStream(strings.NewReader(tt.stream), func(adapters.Event) {}); !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

func iotestReader(s string, oneByte bool) io.Reader {
	if oneByte {
		return iotest.OneByteReader(strings.NewReader(s))
	}
	return strings.NewReader(s)
}

// An event whose blank line has arrived reaches the user before any more
// bytes do, whatever its line ends and with a byte order mark before it: a
// line split that skips an LF or the mark without a line must not wait.
func TestReadStream_EventDispatchedWithoutMoreBytes(t *testing.T) {
	for _, start := range []string{"", "\ufeff"} {
		for _, end := range []string{"\n", "\r\n", "\r"} {
			t.Run(strings.NewReplacer("\ufeff", "BOM ", "\r", "CR", "\n", "LF").Replace(start+end), func(t *testing.T) {
				pr, pw := io.Pipe()
				defer pw.Close()
				got := make(chan string, 4)
				go func() { _, _ = readStream(pr, func(ev adapters.Event) { got <- ev.Text }) }()
				if _, err := io.WriteString(pw, start+"data: "+hello+end+end); err != nil {
					t.Fatal(err)
				}
				select {
				case text := <-got:
					if text != "hel" {
						t.Fatalf("first delta %q", text)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the event was not delivered before more bytes came")
				}
			})
		}
	}
}

// A CR-ended event reaches the user as soon as its blank line arrives, not
// when the next byte shows whether an LF follows.
func TestReadStream_CREventDispatchedWithoutWaitingForMore(t *testing.T) {
	pr, pw := io.Pipe()
	got := make(chan string, 4)
	done := make(chan error, 1)
	go func() {
		_, err := readStream(pr, func(ev adapters.Event) { got <- ev.Text })
		done <- err
	}()
	if _, err := io.WriteString(pw, "data: "+hello+"\r\r"); err != nil {
		t.Fatal(err)
	}
	select {
	case text := <-got:
		if text != "hel" {
			t.Fatalf("first delta %q", text)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the CR-ended event was not delivered before more bytes came")
	}
	_, _ = io.WriteString(pw, "\ndata: "+world+"\r\r")
	_ = pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
