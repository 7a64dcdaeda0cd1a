package delegation

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// fakeHost answers over a bridge: Delegate sends two progress lines and
// answers; a prompt of "block" waits for its context to end and reports it.
type fakeHost struct {
	mu        sync.Mutex
	requests  []Request
	started   chan struct{}
	cancelled chan struct{}
}

func newFakeHost() *fakeHost {
	return &fakeHost{started: make(chan struct{}, 1), cancelled: make(chan struct{}, 1)}
}

func (h *fakeHost) Agents() []AgentInfo { return []AgentInfo{{Name: "codex"}} }

func (h *fakeHost) Delegate(ctx context.Context, r Request, progress Progress) (Result, error) {
	h.mu.Lock()
	h.requests = append(h.requests, r)
	h.mu.Unlock()
	if r.Session != "" {
		return Result{Session: r.Session, Answer: "again: " + r.Prompt}, nil
	}
	if r.Prompt == "block" {
		h.started <- struct{}{}
		<-ctx.Done()
		h.cancelled <- struct{}{}
		return Result{}, ctx.Err()
	}
	if progress != nil {
		progress("codex: Run ls")
		progress("codex: Run ls: completed")
	}
	return Result{Agent: r.Agent, Session: "d1", Answer: "done: " + r.Prompt, StopReason: "end_turn"}, nil
}

func listen(t *testing.T) *Bridge {
	t.Helper()
	b, err := Listen(zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dialBridge(t *testing.T, b *Bridge, token string) *Remote {
	t.Helper()
	env := b.Env(token)
	r, child, err := Dial(func(k string) string { return env[k] }, zerolog.Nop())
	if !child || err != nil {
		t.Fatalf("Dial: child=%v err=%v", child, err)
	}
	t.Cleanup(r.Close)
	return r
}

func TestBridge_RunsCallsOnTheRegisteredHost(t *testing.T) {
	b := listen(t)
	defer b.Close()
	h := newFakeHost()
	token, _ := b.Register(h)
	r := dialBridge(t, b, token)

	if a := r.Agents(); len(a) != 1 || a[0].Name != "codex" {
		t.Fatalf("Agents = %+v", a)
	}
	var mu sync.Mutex
	var lines []string
	res, err := r.Delegate(context.Background(), Request{Agent: "codex", Prompt: "list files"}, func(m string) {
		mu.Lock()
		lines = append(lines, m)
		mu.Unlock()
	})
	if err != nil || res.Answer != "done: list files" || res.Session != "d1" {
		t.Fatalf("Delegate = %+v, %v", res, err)
	}
	if h.requests[0].Agent != "codex" {
		t.Fatalf("host got %+v", h.requests)
	}
	res, err = r.Delegate(context.Background(), Request{Session: "d1", Prompt: "more", Timeout: time.Minute}, nil)
	h.mu.Lock()
	followUp := h.requests[1]
	h.mu.Unlock()
	if err != nil || res.Answer != "again: more" || followUp.Timeout != time.Minute {
		t.Fatalf("follow-up = %+v, %v; host got %+v", res, err, followUp)
	}
	// Progress notifications precede the response on one ordered connection.
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 2 || lines[0] != "codex: Run ls" {
		t.Fatalf("progress = %q", lines)
	}
}

func TestBridge_CancelReachesTheHost(t *testing.T) {
	b := listen(t)
	defer b.Close()
	h := newFakeHost()
	token, _ := b.Register(h)
	r := dialBridge(t, b, token)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.Delegate(ctx, Request{Agent: "codex", Prompt: "block"}, nil)
		done <- err
	}()
	<-h.started
	cancel()
	<-h.cancelled
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Delegate after cancel = %v, want context.Canceled", err)
	}
}

func TestBridge_RefusesWithdrawnAndUnknownTokens(t *testing.T) {
	b := listen(t)
	defer b.Close()
	token, unregister := b.Register(newFakeHost())
	unregister()
	for _, tok := range []string{token, "forged"} {
		r := dialBridge(t, b, tok)
		_, err := r.Delegate(context.Background(), Request{Agent: "codex", Prompt: "x"}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "unknown delegation token") {
			t.Fatalf("token %q: Delegate answered %v, want the parent's refusal in its own words", tok, err)
		}
	}
}

func TestBridge_ParentGoneIsErrNoParent(t *testing.T) {
	b := listen(t)
	token, _ := b.Register(newFakeHost())
	r := dialBridge(t, b, token)
	b.Close()
	if _, err := r.Delegate(context.Background(), Request{Agent: "codex", Prompt: "x"}, nil); !errors.Is(err, ErrNoParent) {
		t.Fatalf("Delegate after parent closed = %v, want ErrNoParent", err)
	}
	env := b.Env(token)
	if _, child, err := Dial(func(k string) string { return env[k] }, zerolog.Nop()); !child || !errors.Is(err, ErrNoParent) {
		t.Fatalf("Dial to a closed bridge: child=%v err=%v", child, err)
	}
	if _, child, _ := Dial(func(string) string { return "" }, zerolog.Nop()); child {
		t.Fatal("Dial with no environment claims a parent")
	}
}
