package openai

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/sandbox"
	"github.com/hubdev/hub/internal/transcript"
)

// resumeRig starts sessions of one adapter that keeps transcripts in dir.
type resumeRig struct {
	srv  *mockllm.OpenAIServer
	a    *Adapter
	root string
	dir  string
	gate *testGate // allows what its rules leave open
}

func newResumeRig(t *testing.T, window int, turns ...mockllm.OpenAITurn) *resumeRig {
	t.Helper()
	srv := mockllm.NewOpenAIServer(turns...)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	p := Profile{Name: "test", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: window}
	// The sandbox is off so the tool output is the command's alone, on
	// hosts with and without bwrap.
	a := New(p, Options{Clock: &fakeClock{}, IdleTimeout: 5 * time.Second, TranscriptDir: dir, Sandbox: sandbox.Policy{Mode: sandbox.Off}})
	root := t.TempDir()
	return &resumeRig{srv: srv, a: a, root: root, dir: dir, gate: newGate(t, root).answer(allowOnce)}
}

func (r *resumeRig) start(t *testing.T, resume string, fork bool) *Session {
	t.Helper()
	s, err := r.a.Start(context.Background(), adapters.SessionOptions{Cwd: r.root, ResumeID: resume, Fork: fork, Permission: r.gate.ask})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s.(*Session)
}

func (r *resumeRig) prompt(t *testing.T, s *Session, text string) {
	t.Helper()
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt(text))
	if err != nil {
		t.Fatal(err)
	}
	if _, stop := drain(t, ch); stop != adapters.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
}

// texts are the request's non-system messages, as role: text.
func texts(req mockllm.OpenAIRequest) []string {
	var out []string
	for _, m := range req.Messages[1:] {
		out = append(out, m["role"].(string)+": "+mockllm.MessageText(m))
	}
	return out
}

func TestSession_ResumeFromTranscript(t *testing.T) {
	needHostShell(t)
	r := newResumeRig(t, 200000,
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"echo hi"}`}}},
		mockllm.OpenAITurn{Text: "first answer"},
		mockllm.OpenAITurn{Text: "second answer"},
	)
	s := r.start(t, "", false)
	r.prompt(t, s, "first question")
	id := s.ID()
	s.Close()

	resumed := r.start(t, id, false)
	if resumed.ID() != id {
		t.Fatalf("resumed id %q, want %q", resumed.ID(), id)
	}
	r.prompt(t, resumed, "second question")
	reqs := r.srv.Requests()
	got := strings.Join(texts(reqs[2]), "\n")
	for _, want := range []string{"user: first question", "tool: hi", "assistant: first answer", "user: second question"} {
		if !strings.Contains(got, want) {
			t.Fatalf("resumed request lacks %q:\n%s", want, got)
		}
	}
	if reqs[2].Messages[0]["role"] != "system" {
		t.Fatalf("resumed request starts with %v", reqs[2].Messages[0]["role"])
	}
}

func TestSession_ResumeKeepsCompaction(t *testing.T) {
	big := strings.Repeat("word ", 800)
	r := newResumeRig(t, 3500,
		mockllm.OpenAITurn{Text: "first answer"},
		mockllm.OpenAITurn{Text: "- SUMMARY of turn one"},
		mockllm.OpenAITurn{Text: "second answer"},
		mockllm.OpenAITurn{Text: "third answer"},
	)
	s := r.start(t, "", false)
	r.prompt(t, s, big)
	r.prompt(t, s, big+"again")
	s.Close()

	r.prompt(t, r.start(t, s.ID(), false), "third")
	reqs := r.srv.Requests()
	got := texts(reqs[len(reqs)-1])
	for i := range got {
		got[i] = strings.ReplaceAll(got[i], big, "BIG ")
	}
	want := []string{"user: Summary of the earlier conversation (older messages were compacted):\n\n- SUMMARY of turn one",
		"assistant: first answer", "user: BIG again", "assistant: second answer", "user: third"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("resumed history:\n%q\nwant\n%q", got, want)
	}
}

func TestSession_ResumeSkipsTornLastLine(t *testing.T) {
	r := newResumeRig(t, 200000, mockllm.OpenAITurn{Text: "first answer"}, mockllm.OpenAITurn{Text: "again"})
	s := r.start(t, "", false)
	r.prompt(t, s, "first question")
	s.Close()
	p, _ := transcript.Path(r.dir, s.ID())
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"type":"message","message":{"role":"user","content":"half a li`)
	f.Close()

	r.prompt(t, r.start(t, s.ID(), false), "next")
	got := strings.Join(texts(r.srv.Requests()[1]), "|")
	if got != "user: first question|assistant: first answer|user: next" {
		t.Fatalf("history after a torn line: %q", got)
	}
}

func TestSession_ForkLeavesOriginal(t *testing.T) {
	r := newResumeRig(t, 200000, mockllm.OpenAITurn{Text: "one"}, mockllm.OpenAITurn{Text: "forked"}, mockllm.OpenAITurn{Text: "original"})
	s := r.start(t, "", false)
	r.prompt(t, s, "q1")
	s.Close()
	f := r.start(t, s.ID(), true)
	if f.ID() == s.ID() {
		t.Fatal("fork kept the original id")
	}
	r.prompt(t, f, "in fork")
	r.prompt(t, r.start(t, s.ID(), false), "in original")
	got := strings.Join(texts(r.srv.Requests()[2]), "|")
	if got != "user: q1|assistant: one|user: in original" {
		t.Fatalf("original after a fork: %q", got)
	}
}

// A transcript with a corrupt line in the middle is refused for resume:
// the conversation without that message would be another one (the acp
// index reads past such a line; a resume must not).
func TestSession_ResumeRefusesACorruptTranscript(t *testing.T) {
	r := newResumeRig(t, 200000, mockllm.OpenAITurn{Text: "one"}, mockllm.OpenAITurn{Text: "two"})
	s := r.start(t, "", false)
	r.prompt(t, s, "q1")
	r.prompt(t, s, "q2")
	file := filepath.Join(r.dir, s.ID()+".jsonl")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), `"q1"`, `"q1`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := r.a.Start(context.Background(), adapters.SessionOptions{Cwd: r.root, ResumeID: s.ID()}); err == nil || !strings.Contains(err.Error(), "line") {
		t.Fatalf("resumed a corrupt transcript: %v", err)
	}
}

func TestSession_ResumeUnknownID(t *testing.T) {
	r := newResumeRig(t, 200000)
	_, err := r.a.Start(context.Background(), adapters.SessionOptions{Cwd: r.root, ResumeID: "native-1-1"})
	if !errors.Is(err, transcript.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	off := New(r.a.profile, Options{})
	if _, err := off.Start(context.Background(), adapters.SessionOptions{Cwd: r.root, ResumeID: "x"}); !errors.Is(err, adapters.ErrUnsupported) {
		t.Fatalf("without transcripts: err = %v", err)
	}
	if off.Capabilities().Resume {
		t.Fatal("resume advertised without transcripts")
	}
	if _, err := os.Stat(filepath.Join(r.dir, "x.jsonl")); err == nil {
		t.Fatal("a failed resume wrote a transcript")
	}
}

// A summarizer that fails does not let the history outgrow the window:
// the oldest messages are dropped from the requests, and stay in the
// transcript.
func TestSession_FailedSummaryDropsOldestTurns(t *testing.T) {
	const window = 3500
	big := strings.Repeat("word ", 800) // ~1000 tokens
	r := newResumeRig(t, window,
		mockllm.OpenAITurn{Text: "first answer"},
		mockllm.OpenAITurn{Status: 400, ErrorBody: "context length exceeded"}, // the summary request
		mockllm.OpenAITurn{Text: "second answer"},
	)
	s := r.start(t, "", false)
	r.prompt(t, s, "FIRST "+big)
	r.prompt(t, s, "SECOND "+big)
	reqs := r.srv.Requests()
	if len(reqs) != 3 || !strings.Contains(mockllm.MessageText(reqs[1].Messages[0]), "Summarize the conversation") {
		t.Fatalf("%d requests; want an answer, a summary request, an answer", len(reqs))
	}
	last := string(reqs[2].Body)
	if strings.Contains(last, "FIRST") || !strings.Contains(last, "SECOND") {
		t.Fatalf("the request after a failed summary still holds the oldest turn: %s", texts(reqs[2]))
	}
	if tokens := len(last) / 4; tokens > window {
		t.Fatalf("the request after a failed summary is ~%d tokens, window %d", tokens, window)
	}
	recs, err := transcript.Read(r.dir, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	kept := false
	for _, rec := range recs {
		kept = kept || strings.Contains(string(rec.Message), "FIRST")
	}
	if !kept {
		t.Fatal("the dropped turn is not in the transcript")
	}
}

// A transcript's message comes back with the content types the loop
// sends: text, parts (an image prompt) or none; anything else is refused.
func TestDecodeMessage_ContentTypes(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       any
		bad        bool
	}{
		{name: "text", data: `{"role":"user","content":"hi"}`, want: "hi"},
		{name: "parts", data: `{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:x"}}]}`,
			want: []part{{Type: "text", Text: "see"}, {Type: "image_url", ImageURL: &imageURL{URL: "data:x"}}}},
		{name: "null", data: `{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`},
		{name: "number", data: `{"role":"user","content":3}`, bad: true},
		{name: "object", data: `{"role":"user","content":{}}`, bad: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := decodeMessage([]byte(c.data))
			if (err != nil) != c.bad {
				t.Fatalf("err = %v, want error %v", err, c.bad)
			}
			if !c.bad && !reflect.DeepEqual(m.Content, c.want) {
				t.Errorf("content = %#v, want %#v", m.Content, c.want)
			}
		})
	}
}
