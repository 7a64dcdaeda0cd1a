package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

type fakeClock struct {
	mu     sync.Mutex
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time { return time.Unix(1_700_000_000, 0) }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	return ctx.Err()
}

type testRig struct {
	srv   *mockllm.OpenAIServer
	clock *fakeClock
	sess  *Session
	root  string
	gate  *testGate // the session's gate, with no rules until a test sets them
}

func newRig(t *testing.T, mutate func(*Profile, *Options), turns ...mockllm.OpenAITurn) *testRig {
	t.Helper()
	srv := mockllm.NewOpenAIServer(turns...)
	t.Cleanup(srv.Close)
	clock := &fakeClock{}
	p := Profile{Name: "test", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 200000}
	o := Options{Clock: clock, IdleTimeout: 5 * time.Second}
	if mutate != nil {
		mutate(&p, &o)
	}
	root := t.TempDir()
	g := newGate(t, root)
	s, err := New(p, o).Start(context.Background(), adapters.SessionOptions{Cwd: root, Permission: g.ask})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return &testRig{srv: srv, clock: clock, sess: s.(*Session), root: root, gate: g}
}

// answer picks a permission option id for a request.
type answer func(req *adapters.PermissionRequest) string

func allowOnce(*adapters.PermissionRequest) string { return "allow_once" }

func (r *testRig) prompt(t *testing.T, text string, ans answer) ([]adapters.Event, adapters.StopReason) {
	t.Helper()
	r.gate.answer(ans)
	ch, err := fixture.Prompt(context.Background(), r.sess, adapters.TextPrompt(text))
	if err != nil {
		t.Fatal(err)
	}
	return drain(t, ch)
}

// drain reads a turn to its end; a permission request on it fails the test:
// the session's gate answers them.
func drain(t *testing.T, ch <-chan adapters.Event) ([]adapters.Event, adapters.StopReason) {
	t.Helper()
	var evs []adapters.Event
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				if len(evs) == 0 || evs[len(evs)-1].Type != adapters.EventDone {
					t.Fatalf("stream closed without done: %+v", evs)
				}
				return evs, evs[len(evs)-1].StopReason
			}
			if ev.Type == adapters.EventPermission {
				t.Fatalf("a permission request passed the gate: %+v", ev.Permission.Tool)
			}
			evs = append(evs, ev)
		case <-timeout:
			t.Fatalf("turn did not end; events so far: %+v", evs)
		}
	}
}

func textOf(evs []adapters.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == adapters.EventText {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func count(evs []adapters.Event, typ adapters.EventType) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func firstError(evs []adapters.Event) *adapters.ErrorInfo {
	for _, e := range evs {
		if e.Type == adapters.EventError {
			return e.Error
		}
	}
	return nil
}

// fatalError returns the error that ended the turn, if any.
func fatalError(evs []adapters.Event) *adapters.ErrorInfo {
	for _, e := range evs {
		if e.Type == adapters.EventError && e.Error.Fatal {
			return e.Error
		}
	}
	return nil
}

func TestSession_StreamsTextAndUsage(t *testing.T) {
	r := newRig(t, nil, mockllm.OpenAITurn{Text: "Hello there, world", Reasoning: "thinking"})
	if err := os.WriteFile(filepath.Join(r.root, "AGENTS.md"), []byte("Always use tabs."), 0o644); err != nil {
		t.Fatal(err)
	}
	evs, stop := r.prompt(t, "hi", nil)
	if stop != adapters.StopEndTurn || textOf(evs) != "Hello there, world" || count(evs, adapters.EventUsage) != 1 || count(evs, adapters.EventThought) == 0 {
		t.Fatalf("stop=%s text=%q events=%+v", stop, textOf(evs), evs)
	}
	req := r.srv.Requests()[0]
	sys := mockllm.MessageText(req.Messages[0])
	if !req.Stream || len(req.Tools) != 6 || !strings.Contains(sys, r.root) || !strings.Contains(string(req.Body), `"include_usage":true`) {
		t.Fatalf("request: stream=%v tools=%d sys=%q", req.Stream, len(req.Tools), sys)
	}
	// The system prompt was built at Start, before AGENTS.md existed.
	if strings.Contains(sys, "Always use tabs") {
		t.Fatal("unexpected project text")
	}
}

// The context size a turn reports is the window the loop compacts within:
// the profile's, else the default it compacts at without one.
func TestSession_UsageReportsTheWindowItCompactsIn(t *testing.T) {
	for _, window := range []int{0, 5000} {
		r := newRig(t, func(p *Profile, _ *Options) { p.ContextWindow = window }, mockllm.OpenAITurn{Text: "hi"})
		evs, _ := r.prompt(t, "hi", nil)
		want := int64(cmp.Or(window, DefaultContextWindow))
		if i := slices.IndexFunc(evs, func(ev adapters.Event) bool { return ev.Type == adapters.EventUsage }); i < 0 || evs[i].Usage.ContextSize != want {
			t.Fatalf("window %d: no usage event with context size %d", window, want)
		}
	}
}

func TestSession_ProjectInstructionsFromParent(t *testing.T) {
	parent := t.TempDir()
	child := filepath.Join(parent, "a", "b")
	if err := os.MkdirAll(child, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "AGENTS.md"), []byte("Always use tabs."), 0o644); err != nil {
		t.Fatal(err)
	}
	sys := systemPrompt(child, "Use skill X.", time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC))
	for _, want := range []string{"Always use tabs.", "Use skill X.", "2025-01-02", child} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
}

func TestSession_ReadEditBashAcrossTurns(t *testing.T) {
	needHostShell(t)
	r := newRig(t, nil,
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		mockllm.OpenAITurn{Text: "Editing.", ToolCalls: []mockllm.OpenAIToolCall{{Name: "edit_file", Args: `{"path":"a.txt","old_string":"hello","new_string":"bye"}`}}},
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"cat a.txt"}`}}},
		mockllm.OpenAITurn{Text: "Done."},
	)
	if err := os.WriteFile(filepath.Join(r.root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var asked []adapters.ToolKind
	evs, stop := r.prompt(t, "change hello to bye", func(req *adapters.PermissionRequest) string {
		asked = append(asked, req.Tool.Kind)
		return "allow_once"
	})
	if stop != adapters.StopEndTurn || textOf(evs) != "Editing.Done." {
		t.Fatalf("stop=%s text=%q", stop, textOf(evs))
	}
	if b, _ := os.ReadFile(filepath.Join(r.root, "a.txt")); string(b) != "bye\n" {
		t.Fatalf("file %q", b)
	}
	if len(asked) != 2 || asked[0] != adapters.KindEdit || asked[1] != adapters.KindExecute {
		t.Fatalf("asked %v", asked)
	}
	var kinds []adapters.ToolKind
	var sawDiff bool
	for _, e := range evs {
		if e.Type == adapters.EventToolCall {
			kinds = append(kinds, e.Tool.Kind)
			if e.Tool.Locations[0].Path == "" || !filepath.IsAbs(e.Tool.Locations[0].Path) {
				t.Errorf("location not absolute: %+v", e.Tool.Locations)
			}
		}
		if e.Type == adapters.EventToolUpdate && len(e.Tool.Content) > 0 && e.Tool.Content[0].Type == adapters.ToolContentDiff {
			sawDiff = *e.Tool.Content[0].OldText == "hello\n" && e.Tool.Content[0].NewText == "bye\n"
		}
	}
	if len(kinds) != 3 || kinds[0] != adapters.KindRead || kinds[2] != adapters.KindExecute || !sawDiff {
		t.Fatalf("kinds %v diff %v", kinds, sawDiff)
	}
	reqs := r.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	tool := last[len(last)-1]
	if tool["role"] != "tool" || !strings.Contains(mockllm.MessageText(tool), "bye") || !strings.Contains(mockllm.MessageText(last[3]), "1\thello") {
		t.Fatalf("history: %+v", last)
	}
	// Multi-turn: the next prompt carries the earlier history.
	r.srv.Add(mockllm.OpenAITurn{Text: "again"})
	r.prompt(t, "thanks", nil)
	reqs = r.srv.Requests()
	if n := len(reqs[len(reqs)-1].Messages); n != len(last)+2 {
		t.Fatalf("history not kept: %d messages, before %d", n, len(last))
	}
}

func TestSession_Retries(t *testing.T) {
	r := newRig(t, nil,
		mockllm.OpenAITurn{Status: 429, RetryAfter: "7"},
		mockllm.OpenAITurn{Status: 500},
		mockllm.OpenAITurn{Reset: true},
		mockllm.OpenAITurn{Text: "ok"},
	)
	evs, stop := r.prompt(t, "hi", nil)
	if stop != adapters.StopEndTurn || textOf(evs) != "ok" || fatalError(evs) != nil {
		t.Fatalf("stop=%s evs=%+v", stop, evs)
	}
	var notices []string
	for _, e := range evs {
		if e.Type == adapters.EventError {
			notices = append(notices, string(e.Error.Code))
			if !strings.Contains(e.Error.Message, "retrying in") {
				t.Errorf("retry notice %q does not say when", e.Error.Message)
			}
		}
	}
	if strings.Join(notices, " ") != "rate_limit provider provider" {
		t.Errorf("retry notices %q, want one non-fatal notice per retry", notices)
	}
	s := r.clock.sleeps
	if len(s) != 3 || s[0] != 7*time.Second || s[1] < 800*time.Millisecond || s[1] > 1200*time.Millisecond || s[2] < 1600*time.Millisecond || s[2] > 2400*time.Millisecond {
		t.Fatalf("sleeps %v", s)
	}
}

func TestSession_Errors(t *testing.T) {
	tests := []struct {
		name     string
		turn     mockllm.OpenAITurn
		code     string
		requests int
	}{
		{"auth", mockllm.OpenAITurn{Status: 401, ErrorBody: "bad key"}, "auth", 1},
		{"bad request", mockllm.OpenAITurn{Status: 400, ErrorBody: "model not found"}, "provider", 1},
		{"malformed chunk", mockllm.OpenAITurn{Raw: "data: {not json\n\n"}, "protocol", 1},
		{"early eof", mockllm.OpenAITurn{Raw: "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n"}, "protocol", 1},
		{"retries exhausted", mockllm.OpenAITurn{Status: 503}, "provider", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var turns []mockllm.OpenAITurn
			for range tt.requests {
				turns = append(turns, tt.turn)
			}
			r := newRig(t, nil, turns...)
			evs, stop := r.prompt(t, "hi", nil)
			e := fatalError(evs)
			if stop != adapters.StopEndTurn || e == nil || string(e.Code) != tt.code || len(r.srv.Requests()) != tt.requests {
				t.Fatalf("stop=%s err=%+v requests=%d", stop, e, len(r.srv.Requests()))
			}
		})
	}
}

// Nothing listens: the turn ends at once with one line, no backoff.
func TestSession_RefusedConnectionNotRetried(t *testing.T) {
	r := newRig(t, func(p *Profile, _ *Options) { p.BaseURL = "http://127.0.0.1:1/v1" })
	evs, stop := r.prompt(t, "hi", nil)
	e := fatalError(evs)
	if stop != adapters.StopEndTurn || e == nil || !strings.Contains(e.Message, "is the server running?") || len(r.clock.sleeps) != 0 {
		t.Fatalf("err=%+v sleeps=%v", e, r.clock.sleeps)
	}
}

func TestSession_IdleStreamEnds(t *testing.T) {
	r := newRig(t, func(_ *Profile, o *Options) { o.IdleTimeout = 200 * time.Millisecond; o.MaxRetries = new(int) },
		mockllm.OpenAITurn{Hang: true})
	// A stream left hanging would fail drain's hang guard.
	evs, _ := r.prompt(t, "hi", nil)
	if e := firstError(evs); e == nil || !strings.Contains(e.Message, "stalled") {
		t.Fatalf("err=%+v", e)
	}
}

// cancelAt passes ch on and calls cancel when the first event of type at
// arrives, so the turn is cancelled where the test means it to be however
// slow the machine.
func cancelAt(ch <-chan adapters.Event, at adapters.EventType, cancel func()) <-chan adapters.Event {
	out := make(chan adapters.Event)
	go func() {
		defer close(out)
		for ev := range ch {
			if ev.Type == at {
				cancel()
			}
			out <- ev
		}
	}()
	return out
}

func TestSession_CancelMidStreamAndMidBackoff(t *testing.T) {
	tests := []struct {
		name string
		turn mockllm.OpenAITurn
		real bool
		at   adapters.EventType // the event that shows the turn is where the row cancels it
	}{
		{"mid-stream", mockllm.OpenAITurn{Text: "so far", Hang: true}, false, adapters.EventText},
		{"mid-backoff", mockllm.OpenAITurn{Status: 429, RetryAfter: "60"}, true, adapters.EventError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, func(_ *Profile, o *Options) {
				if tt.real {
					o.Clock = realClock{}
				}
			}, tt.turn)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch, err := fixture.Prompt(ctx, r.sess, adapters.TextPrompt("hi"))
			if err != nil {
				t.Fatal(err)
			}
			// A turn that ignored the cancel would hang on the mock or wait
			// out the 60 s backoff, and fail drain's hang guard.
			_, stop := drain(t, cancelAt(ch, tt.at, cancel))
			if stop != adapters.StopCancelled {
				t.Fatalf("stop=%s", stop)
			}
			// The session is usable again.
			r.srv.Add(mockllm.OpenAITurn{Text: "back"})
			if evs, stop := r.prompt(t, "again", nil); stop != adapters.StopEndTurn || textOf(evs) != "back" {
				t.Fatalf("after cancel: %s %q", stop, textOf(evs))
			}
		})
	}
}

// A reply filtered or cut ends the turn with that stop reason, also one
// that called tools: its calls are answered and no further request is made.
func TestSession_FinishReasons(t *testing.T) {
	call := []mockllm.OpenAIToolCall{{Name: "glob", Args: `{"pattern":"*"}`}}
	tests := []struct {
		finish string
		calls  []mockllm.OpenAIToolCall
		want   adapters.StopReason
	}{
		{"content_filter", nil, adapters.StopRefusal},
		{"length", nil, adapters.StopMaxTokens},
		{"stop", nil, adapters.StopEndTurn},
		{"content_filter", call, adapters.StopRefusal},
		{"length", call, adapters.StopMaxTokens},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.finish, " tools ", len(tt.calls)), func(t *testing.T) {
			r := newRig(t, nil, mockllm.OpenAITurn{Text: "partial", ToolCalls: tt.calls, FinishReason: tt.finish}, mockllm.OpenAITurn{Text: "more"})
			if _, stop := r.prompt(t, "hi", nil); stop != tt.want || len(r.srv.Requests()) != 1 {
				t.Fatalf("stop %s after %d requests, want %s after 1", stop, len(r.srv.Requests()), tt.want)
			}
		})
	}
}

// Input steered into a turn that ends before another request (here a
// reply cut at its token limit, whose calls still run) is not dropped: it
// joins the history, as the editor shows it, and the next turn's model
// reads it.
func TestSession_SteeredInputOutlivesATurnThatEnds(t *testing.T) {
	r := newRig(t, nil,
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"echo hi"}`}}, FinishReason: "length"},
		mockllm.OpenAITurn{Text: "done"})
	var steerErr error
	_, stop := r.prompt(t, "run it", func(*adapters.PermissionRequest) string {
		steerErr = r.sess.Steer(context.Background(), adapters.TextPrompt("also use -n"))
		return "allow_once"
	})
	if steerErr != nil || stop != adapters.StopMaxTokens {
		t.Fatalf("steer %v, stop %s", steerErr, stop)
	}
	if err := r.sess.Steer(context.Background(), adapters.TextPrompt("late")); !errors.Is(err, adapters.ErrNoTurn) {
		t.Fatalf("Steer after the turn: %v, want ErrNoTurn", err)
	}
	r.prompt(t, "next", nil)
	if body := string(r.srv.Requests()[1].Body); !strings.Contains(body, "also use -n") {
		t.Fatalf("the next request lost the steered input: %s", body)
	}
}

func TestSession_MaxTurnRequests(t *testing.T) {
	call := func(p string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "glob", Args: `{"pattern":"` + p + `"}`}}}
	}
	r := newRig(t, func(p *Profile, _ *Options) { p.MaxTurnRequests = 2 }, call("*.a"), call("*.b"), call("*.c"))
	if _, stop := r.prompt(t, "loop", nil); stop != adapters.StopMaxTurnRequests || len(r.srv.Requests()) != 2 {
		t.Fatalf("stop=%s requests=%d", stop, len(r.srv.Requests()))
	}
}

// A session's own budget and schema: SessionOptions.MaxTurns overrides the
// profile's max_turn_requests, and OutputSchema becomes response_format
// json_schema only where the profile says the provider takes it.
func TestSession_MaxTurnsAndOutputSchemaFromSessionOptions(t *testing.T) {
	const schema = `{"type":"object"}`
	for _, jsonSchema := range []bool{true, false} {
		t.Run(fmt.Sprint("json_schema ", jsonSchema), func(t *testing.T) {
			call := mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "glob", Args: `{"pattern":"*"}`}}}
			srv := mockllm.NewOpenAIServer(call, call, call)
			defer srv.Close()
			p := Profile{Name: "test", BaseURL: srv.URL, Model: "m", Local: true, Stream: true, MaxTurnRequests: 3, JSONSchema: jsonSchema}
			cwd := t.TempDir()
			s, err := New(p, Options{}).Start(context.Background(), adapters.SessionOptions{Cwd: cwd, MaxTurns: 1, OutputSchema: json.RawMessage(schema),
				Permission: newGate(t, cwd).answer(allowOnce).ask})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("loop"))
			if err != nil {
				t.Fatal(err)
			}
			if _, stop := drain(t, ch); stop != adapters.StopMaxTurnRequests || len(srv.Requests()) != 1 {
				t.Fatalf("stop %s after %d requests, want max_turn_requests after 1", stop, len(srv.Requests()))
			}
			want := `"response_format":{"type":"json_schema","json_schema":{"name":"output","schema":` + schema + `,"strict":true}}`
			if got := strings.Contains(string(srv.Requests()[0].Body), want); got != jsonSchema {
				t.Errorf("request %s: response_format %v, want %v", srv.Requests()[0].Body, got, jsonSchema)
			}
		})
	}
}

func TestSession_DoomLoopAsks(t *testing.T) {
	same := mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "glob", Args: `{"pattern":"*.go"}`}}}
	reordered := mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "glob", Args: `{ "pattern" : "*.go" }`}}}
	r := newRig(t, nil, same, reordered, same, mockllm.OpenAITurn{Text: "ok, stopping"})
	var asked []string
	evs, stop := r.prompt(t, "x", func(req *adapters.PermissionRequest) string {
		asked = append(asked, req.Tool.Title)
		return "stop"
	})
	if stop != adapters.StopEndTurn || len(asked) != 1 || !strings.Contains(asked[0], "Repeated 3 times") {
		t.Fatalf("stop=%s asked=%v", stop, asked)
	}
	msgs := r.srv.Requests()[3].Messages
	if !strings.Contains(mockllm.MessageText(msgs[len(msgs)-1]), "Stopped by the user") {
		t.Fatalf("tool result %+v", msgs[len(msgs)-1])
	}
	_ = evs
}

func TestSession_PermissionDenials(t *testing.T) {
	r := newRig(t, nil,
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"rm -rf /"}`}}},
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"../escape.txt","content":"x"}`}}},
		mockllm.OpenAITurn{Text: "gave up"},
	)
	r.gate.setRules(config.PermissionRule{Tool: "*", Decision: "allow"})
	evs, stop := r.prompt(t, "x", nil) // nil answer: any permission event fails the test
	reqs := r.srv.Requests()
	m1 := reqs[1].Messages
	m2 := reqs[2].Messages
	if stop != adapters.StopEndTurn || !strings.Contains(mockllm.MessageText(m1[len(m1)-1]), "Permission denied") ||
		!strings.Contains(mockllm.MessageText(m2[len(m2)-1]), "outside the workspace") {
		t.Fatalf("stop=%s msgs %v / %v", stop, m1[len(m1)-1], m2[len(m2)-1])
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(r.root), "escape.txt")); err == nil {
		t.Fatal("escaped write happened")
	}
	failed := 0
	for _, e := range evs {
		if e.Tool != nil && e.Tool.Status == adapters.StatusFailed {
			failed++
		}
	}
	if failed != 2 {
		t.Fatalf("failed tool events %d", failed)
	}
}

func TestSession_RejectAlwaysRemembered(t *testing.T) {
	w := func(p string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"` + p + `","content":"x"}`}}}
	}
	r := newRig(t, nil, w("a"), w("b"), mockllm.OpenAITurn{Text: "ok"})
	asks := 0
	r.prompt(t, "x", func(*adapters.PermissionRequest) string { asks++; return "reject_always" })
	if asks != 1 {
		t.Fatalf("asked %d times", asks)
	}
	if _, err := os.Stat(filepath.Join(r.root, "b")); err == nil {
		t.Fatal("rejected write happened")
	}
}

func TestSession_StreamRejectedFallsBack(t *testing.T) {
	r := newRig(t, nil, mockllm.OpenAITurn{Text: "plain"})
	r.srv.SetRejectStream(true)
	evs, stop := r.prompt(t, "hi", nil)
	reqs := r.srv.Requests()
	if stop != adapters.StopEndTurn || textOf(evs) != "plain" || len(reqs) != 2 || reqs[1].Stream {
		t.Fatalf("stop=%s text=%q reqs=%d", stop, textOf(evs), len(reqs))
	}
}

func TestSession_CompactsLongHistory(t *testing.T) {
	big := strings.Repeat("word ", 800) // ~1000 tokens
	r := newRig(t, func(p *Profile, _ *Options) { p.ContextWindow = 3500 },
		mockllm.OpenAITurn{Text: "first answer"},
		mockllm.OpenAITurn{Text: "- SUMMARY of turn one"},
		mockllm.OpenAITurn{Text: "second answer"},
	)
	r.prompt(t, big, nil)
	evs, stop := r.prompt(t, big+" again", nil)
	reqs := r.srv.Requests()
	if stop != adapters.StopEndTurn || len(reqs) != 3 {
		t.Fatalf("stop=%s reqs=%d", stop, len(reqs))
	}
	if !strings.Contains(mockllm.MessageText(reqs[1].Messages[0]), "Summarize the conversation") || len(reqs[1].Tools) != 0 {
		t.Fatalf("summary request %+v", reqs[1].Messages[0])
	}
	final := reqs[2].Messages
	if len(final) != 4 || final[0]["role"] != "system" || !strings.Contains(mockllm.MessageText(final[1]), "SUMMARY of turn one") ||
		mockllm.MessageText(final[2]) != "first answer" {
		t.Fatalf("compacted history: %d messages: %v", len(final), final)
	}
	var statuses []string
	for _, ev := range evs {
		if ev.Type == adapters.EventCompaction {
			statuses = append(statuses, ev.Compaction.Status)
		}
	}
	if strings.Join(statuses, " ") != "in_progress completed" {
		t.Fatalf("compaction events %v, want in_progress then completed", statuses)
	}
	// Both requests' tokens are reported, the summary's without a context figure.
	var used []int64
	for _, ev := range evs {
		if ev.Type == adapters.EventUsage {
			used = append(used, ev.Usage.ContextUsed)
		}
	}
	if len(used) != 2 || used[0] != 0 || used[1] == 0 {
		t.Fatalf("usage events' context used %v, want the summary's (0) then the answer's", used)
	}
}

func TestSession_ImagesWhenVision(t *testing.T) {
	prompt := []adapters.Content{{Type: adapters.ContentText, Text: "see"}, {Type: adapters.ContentImage, MimeType: "image/png", Data: "iVBORw0"}}
	for _, vision := range []bool{true, false} {
		r := newRig(t, func(p *Profile, _ *Options) { p.Vision = vision }, mockllm.OpenAITurn{Text: "ok"})
		ch, _ := fixture.Prompt(context.Background(), r.sess, prompt)
		drain(t, ch)
		body := string(r.srv.Requests()[0].Body)
		if got := strings.Contains(body, `"image_url":{"url":"data:image/png;base64,iVBORw0"}`); got != vision {
			t.Fatalf("vision=%v image sent=%v: %s", vision, got, body)
		}
	}
}

func TestSession_BusyAndClosed(t *testing.T) {
	r := newRig(t, nil, mockllm.OpenAITurn{Text: "so far", Hang: true})
	ch, _ := fixture.Prompt(context.Background(), r.sess, adapters.TextPrompt("a"))
	if _, err := r.sess.Prompt(context.Background(), adapters.TextPrompt("b"), func(adapters.Event) {}); err != adapters.ErrBusy {
		t.Fatalf("got %v", err)
	}
	_ = r.sess.Close()
	if _, stop := drain(t, ch); stop != adapters.StopCancelled {
		t.Fatalf("stop %s", stop)
	}
	if _, err := r.sess.Prompt(context.Background(), adapters.TextPrompt("c"), func(adapters.Event) {}); err != adapters.ErrClosed {
		t.Fatalf("got %v", err)
	}
}

// Input steered while a tool waits for permission reaches the next model
// request of the same turn, after the tool's result.
func TestSession_SteeredInputReachesTheNextRequest(t *testing.T) {
	r := newRig(t, nil,
		mockllm.OpenAITurn{Text: "Running.", ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"echo hi"}`}}},
		mockllm.OpenAITurn{Text: "Done, and noted."},
	)
	if err := r.sess.Steer(context.Background(), adapters.TextPrompt("before")); !errors.Is(err, adapters.ErrNoTurn) {
		t.Fatalf("steer with no turn: %v, want ErrNoTurn", err)
	}
	evs, stop := r.prompt(t, "run it", func(*adapters.PermissionRequest) string {
		if err := r.sess.Steer(context.Background(), adapters.TextPrompt("also use -n")); err != nil {
			t.Errorf("steer mid-turn: %v", err)
		}
		return "allow_once"
	})
	if stop != adapters.StopEndTurn || textOf(evs) != "Running.Done, and noted." {
		t.Fatalf("stop=%s text=%q", stop, textOf(evs))
	}
	reqs := r.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if last := msgs[len(msgs)-1]; last["role"] != "user" || mockllm.MessageText(last) != "also use -n" {
		t.Fatalf("second request ends %+v, want the steered input after the tool result", last)
	}
	if prev := msgs[len(msgs)-2]; prev["role"] != "tool" {
		t.Fatalf("steered input is not right after the tool result: %+v", msgs)
	}
	if err := r.sess.Steer(context.Background(), adapters.TextPrompt("after")); !errors.Is(err, adapters.ErrNoTurn) {
		t.Fatalf("steer after the turn: %v, want ErrNoTurn", err)
	}
}
