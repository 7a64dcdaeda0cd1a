package acp

import (
	"context"
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
)

// slowStart is an agent whose start hangs (a CLI stuck before its
// handshake) until its context ends or the test releases it.
type slowStart struct {
	*replay.Adapter
	started chan struct{}
	release chan struct{}
}

func (s slowStart) Name() string { return "slow" }

func (s slowStart) Start(ctx context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	close(s.started)
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.release:
		return s.Adapter.Start(ctx, o)
	}
}

// Starting an agent must not hold the session while the read loop needs
// it: session/cancel and other requests go on, and the cancel ends the
// start, so the prompt answers cancelled without an error message.
func TestPrompt_CancelDuringAgentStart(t *testing.T) {
	slow := slowStart{replay.New(""), make(chan struct{}), make(chan struct{})}
	defer close(slow.release)
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(slow)
		o.DefaultAgent = "slow"
	})
	sid, _ := c.start(t)
	prompt := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("x")}})
	<-slow.started
	c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
	var l schema.ListSessionsResponse
	c.must("session/list", schema.ListSessionsRequest{}, &l)
	r := c.wait(prompt)
	if r.Error != nil || !strings.Contains(string(r.Result), schema.StopCancelled) {
		t.Fatalf("prompt answered %s %v, want cancelled", r.Result, r.Error)
	}
	for _, u := range c.updates(sid) {
		if u.AgentMessageChunk != nil && strings.Contains(u.AgentMessageChunk.Content.Text, "Error") {
			t.Errorf("a cancelled start reported %q", u.AgentMessageChunk.Content.Text)
		}
	}
}
