package acp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
)

// crashy is an adapter whose sessions die: "crash" ends the turn with a
// crash error, "die" leaves the process dead; after either the next Prompt
// fails with ErrClosed. Every start is recorded with the resume id it was
// given, and the sessions closed are counted.
type crashy struct {
	mu      sync.Mutex
	resumes []string
	closed  int
}

func (a *crashy) Name() string { return "crashy" }
func (a *crashy) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Resume: true}
}
func (a *crashy) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.resumes = append(a.resumes, o.ResumeID)
	return &crashySession{a: a, n: len(a.resumes)}, nil
}

func (a *crashy) starts() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.resumes...)
}

type crashySession struct {
	a         *crashy
	n         int
	mu        sync.Mutex
	dead      bool
	closeOnce sync.Once
}

func (s *crashySession) ID() string { return "agent-session-1" }
func (s *crashySession) Close() error {
	s.closeOnce.Do(func() {
		s.a.mu.Lock()
		s.a.closed++
		s.a.mu.Unlock()
	})
	return nil
}
func (s *crashySession) Prompt(ctx context.Context, p []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return "", fmt.Errorf("crashy: %w", adapters.ErrClosed)
	}
	ch := make(chan adapters.Event, 4)
	switch text := adapters.PromptText(p); text {
	case "crash":
		s.dead = true
		ch <- adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "crashy exited: boom", Code: adapters.CodeCrash, Fatal: true}}
	case "die":
		s.dead = true
		ch <- adapters.Event{Type: adapters.EventText, Text: "last words"}
	default:
		ch <- adapters.Event{Type: adapters.EventText, Text: fmt.Sprintf("process %d: %s", s.n, text)}
	}
	ch <- adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
	close(ch)
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{})
}

func newCrashyClient(t *testing.T) (*tclient, *crashy) {
	a := &crashy{}
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(a)
		o.DefaultAgent = "crashy"
	})
	return c, a
}

func lastText(c *tclient, sid string) string {
	ups := c.updates(sid)
	if len(ups) == 0 || ups[len(ups)-1].AgentMessageChunk == nil {
		return ""
	}
	return ups[len(ups)-1].AgentMessageChunk.Content.Text
}

// A crash costs one turn, not the session: the next prompt starts the agent
// again, resuming its own session id.
func TestCrash_NextPromptRestartsAgent(t *testing.T) {
	tests := []struct {
		name       string
		first      string
		firstReply string
	}{
		{name: "crash error event", first: "crash", firstReply: "crashy exited: boom"},
		{name: "process gone before the next prompt", first: "die", firstReply: "last words"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, a := newCrashyClient(t)
			sid, _ := c.start(t)
			if tt.first == "crash" {
				if _, e := c.call("session/prompt", promptOf(sid, tt.first)); e == nil || !strings.Contains(e.Message, tt.firstReply) {
					t.Fatalf("crashed turn answered %v, want an error saying %q", e, tt.firstReply)
				}
			} else {
				c.prompt(sid, tt.first)
				if got := lastText(c, sid); !strings.Contains(got, tt.firstReply) {
					t.Fatalf("first turn text %q, want %q", got, tt.firstReply)
				}
				if _, e := c.call("session/prompt", promptOf(sid, "are you there")); e == nil || !strings.Contains(e.Message, "session closed") {
					t.Fatalf("prompt to a dead process answered %v", e)
				}
			}
			for _, p := range []string{"hello again", "still there"} { // the crash is not held against the new process
				c.prompt(sid, p)
				if got := lastText(c, sid); got != "process 2: "+p {
					t.Fatalf("after the crash: text %q, want the restarted process 2", got)
				}
			}
			if starts := a.starts(); len(starts) != 2 || starts[1] != "agent-session-1" {
				t.Fatalf("starts with resume ids %q, want a second start resuming agent-session-1", starts)
			}
		})
	}
}

func promptOf(sid, text string) schema.PromptRequest {
	return schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}
}
