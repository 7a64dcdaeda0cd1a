package acp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// steerAgent's turns say "working on X" and wait: for steered input (which
// they answer and end with), or, without steering, for release.
type steerAgent struct {
	steers  bool
	release chan struct{}
}

func (a *steerAgent) Name() string                        { return "steerer" }
func (a *steerAgent) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (a *steerAgent) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	s := &steerSession{in: make(chan string, 4), release: a.release}
	if a.steers {
		return &steerableSession{s}, nil
	}
	return s, nil
}

type steerSession struct {
	in      chan string
	release chan struct{}
}

func (s *steerSession) ID() string   { return "steer-1" }
func (s *steerSession) Close() error { return nil }
func (s *steerSession) Prompt(ctx context.Context, p []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	ch := make(chan adapters.Event)
	go func() {
		defer close(ch)
		ch <- adapters.Event{Type: adapters.EventText, Text: "working on " + adapters.PromptText(p) + ";"}
		select {
		case in := <-s.in:
			ch <- adapters.Event{Type: adapters.EventText, Text: "steered by " + in + ";"}
		case <-s.release:
		case <-ctx.Done():
			return
		}
		ch <- adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
	}()
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{})
}

type steerableSession struct{ *steerSession }

func (s *steerableSession) Steer(_ context.Context, p []adapters.Content) error {
	s.in <- adapters.PromptText(p)
	return nil
}

func steerClient(t *testing.T, a *steerAgent, set ...Settings) (*tclient, string) {
	reg := adapters.NewRegistry()
	reg.Register(a)
	o := Options{Registry: reg, DefaultAgent: "steerer", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Minute}
	if len(set) > 0 {
		o.Settings = everywhere(set[0])
	}
	c := startClient(t, o)
	var init struct {
		Meta map[string]map[string]any `json:"_meta"`
	}
	c.must("initialize", schema.InitializeRequest{ProtocolVersion: 1}, &init)
	if init.Meta["steering"]["supported"] != true {
		t.Fatalf("initialize does not advertise steering: %v", init.Meta)
	}
	return c, c.newSession(t.TempDir())
}

func steerReq(sid, text string, promptRequired bool) map[string]any {
	p := map[string]any{"sessionId": sid, "prompt": []schema.ContentBlock{schema.TextBlock(text)}}
	if promptRequired {
		p["_meta"] = map[string]any{"steering": map[string]any{"idleBehavior": "promptRequired"}}
	}
	return p
}

func outcome(t *testing.T, c *tclient, req map[string]any) schema.SteeringResponse {
	t.Helper()
	var r schema.SteeringResponse
	c.must("_session/steering", req, &r)
	return r
}

func TestSteering_ReachesTheRunningTurn(t *testing.T) {
	c, sid := steerClient(t, &steerAgent{steers: true})
	first := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("A")}})
	c.waitFor(t, func() bool { return strings.Contains(c.agentText(sid), "working on A;") })
	if r := outcome(t, c, steerReq(sid, "B", false)); r.Outcome != schema.SteerInjected {
		t.Fatalf("outcome = %+v, want injected", r)
	}
	if m := c.wait(first); m.Error != nil || !strings.Contains(string(m.Result), "end_turn") {
		t.Fatalf("prompt answer %s %v", m.Result, m.Error)
	}
	if got := c.agentText(sid); got != "working on A;steered by B;" {
		t.Fatalf("agent text = %q: the steered input must reach the running turn", got)
	}
}

// Input steered into a CLI agent's running turn passes the UserPromptSubmit
// hooks as a prompt does: one that blocks keeps it from the agent and the
// steering request fails with the hook's reason; clean input reaches it.
func TestSteering_PassesThePromptHooks(t *testing.T) {
	h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("exitifstdin:password:2:no secrets")}}})
	if err != nil {
		t.Fatal(err)
	}
	c, sid := steerClient(t, &steerAgent{steers: true}, Settings{Hooks: h})
	first := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("A")}})
	c.waitFor(t, func() bool { return strings.Contains(c.agentText(sid), "working on A;") })
	if _, rpcErr := c.call("_session/steering", steerReq(sid, "my password is hunter2", false)); rpcErr == nil || !strings.Contains(rpcErr.Message, "no secrets") {
		t.Fatalf("blocked steering answered %v, want the hook's reason", rpcErr)
	}
	if r := outcome(t, c, steerReq(sid, "B", false)); r.Outcome != schema.SteerInjected {
		t.Fatalf("clean steering: %+v, want injected", r)
	}
	if m := c.wait(first); m.Error != nil {
		t.Fatalf("prompt answer %v", m.Error)
	}
	if got := c.agentText(sid); got != "working on A;steered by B;" {
		t.Fatalf("agent text = %q: the blocked input reached the agent, or the clean one did not", got)
	}
}

func TestSteering_WithoutATurnOrAgentSupportQueues(t *testing.T) {
	release := make(chan struct{})
	c, sid := steerClient(t, &steerAgent{release: release})
	if r := outcome(t, c, steerReq(sid, "idle", true)); r.Outcome != schema.SteerPromptRequired || r.Reason != "noRunningTurn" {
		t.Fatalf("idle, opted in: %+v", r)
	}
	first := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("A")}})
	c.waitFor(t, func() bool { return strings.Contains(c.agentText(sid), "working on A;") })
	if r := outcome(t, c, steerReq(sid, "B", true)); r.Outcome != schema.SteerPromptRequired || r.Reason != "steeringUnsupported" {
		t.Fatalf("busy agent that cannot steer, opted in: %+v", r)
	}
	if r := outcome(t, c, steerReq(sid, "C", false)); r.Outcome != schema.SteerStartedNewTurn {
		t.Fatalf("busy agent that cannot steer: %+v", r)
	}
	if strings.Contains(c.agentText(sid), "C") {
		t.Fatal("the queued input ran before the turn ended")
	}
	release <- struct{}{}
	c.wait(first)
	c.waitFor(t, func() bool { return strings.Contains(c.agentText(sid), "working on C;") })
	close(release)
	if got := c.agentText(sid); got != "working on A;working on C;" {
		t.Fatalf("agent text = %q: C runs as the next turn, B was handed back", got)
	}
}

func TestSteering_RecordsTheInputInTheHistory(t *testing.T) {
	c, sid := steerClient(t, &steerAgent{steers: true})
	first := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("A")}})
	c.waitFor(t, func() bool { return strings.Contains(c.agentText(sid), "working on A;") })
	outcome(t, c, steerReq(sid, "B", false))
	c.wait(first)
	c.must("session/close", map[string]any{"sessionId": sid}, nil)
	var users []string
	res, e := c.call("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: t.TempDir(), McpServers: []schema.McpServer{}})
	if e != nil {
		t.Fatalf("load: %v", e)
	}
	_ = json.RawMessage(res)
	for _, u := range c.updates(sid) {
		if u.UserMessageChunk != nil {
			users = append(users, u.UserMessageChunk.Content.Text)
		}
	}
	if strings.Join(users, "|") != "A|B" {
		t.Fatalf("replayed user messages = %q, want the prompt and the steered input", users)
	}
}
