package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// ownHooks says it runs its tools' hooks itself, as the native loop does.
type steerAgent struct {
	steers   bool
	ended    bool // its turn ends while the prompt hooks judge the input
	release  chan struct{}
	ownHooks bool
	noTurn   bool // its Steer finds the turn ended (a model that had finished)
}

func (a *steerAgent) Name() string { return "steerer" }
func (a *steerAgent) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Hooks: a.ownHooks}
}
func (a *steerAgent) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	s := &steerSession{in: make(chan string, 4), release: a.release}
	switch {
	case a.noTurn:
		return &endedSession{s}, nil
	case a.steers:
		return &steerableSession{s, a.ended}, nil
	}
	return s, nil
}

type endedSession struct{ *steerSession }

func (s *endedSession) Steer(context.Context, []adapters.Content) error { return adapters.ErrNoTurn }

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

type steerableSession struct {
	*steerSession
	ended bool
}

func (s *steerableSession) Steer(_ context.Context, p []adapters.Content) error {
	if s.ended {
		return adapters.ErrNoTurn
	}
	s.in <- adapters.PromptText(p)
	return nil
}

func steerClient(t *testing.T, a *steerAgent, mod ...func(*Options)) (*tclient, string) {
	reg := adapters.NewRegistry()
	reg.Register(a)
	opts := Options{Registry: reg, DefaultAgent: "steerer", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Minute}
	for _, m := range mod {
		m(&opts)
	}
	c := startClient(t, opts)
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

// Input steered into a running turn passes the session's UserPromptSubmit
// hooks once, as a prompt does, on every path: one that blocks keeps it
// from the agent and the history, and the steering request fails as a
// blocked prompt does (queued as a turn of its own, with no request to
// answer, the conversation says it); a skill's /command is judged as the
// agent gets it, expanded; a hook that fails lets it pass and is told.
// The same for an agent that runs its tools' hooks itself (the native
// loop): hub runs the prompt's for every agent.
func TestSteering_PassesThePromptHooks(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(fmt.Sprintf("own hooks %v", own), func(t *testing.T) { steeringPassesThePromptHooks(t, own) })
	}
}

func steeringPassesThePromptHooks(t *testing.T, ownHooks bool) {
	tests := []struct {
		name, input string
		steers      bool
		ended       bool // the agent's turn ended while the hooks judged the input
		noTurn      bool // Steer finds the turn ended: the input runs as a turn of its own
		injected    bool
		blocked     bool   // the steering request fails with the hook's reason
		hooked      string // what the hooks saw after the prompt "A"
		said        string // in the conversation when the turns are done
	}{
		{name: "clean input joins the turn", input: "B", steers: true, injected: true, hooked: "B", said: "steered by B;"},
		{name: "blocked input", input: "my SECRET", steers: true, blocked: true, hooked: "my SECRET"},
		{name: "a skill command, as the agent gets it", input: "/review it", steers: true, injected: true, hooked: "EXPANDED review: it",
			said: "steered by EXPANDED review: it;"},
		{name: "a failing hook", input: "FAILME", steers: true, injected: true, hooked: "FAILME", said: "hook broke"},
		{name: "queued as a turn, blocked", input: "my SECRET", hooked: "my SECRET", said: "no secrets"},
		{name: "the turn ends while the hooks judge it: queued as a turn", input: "B", steers: true, ended: true, hooked: "B", said: "working on B;"},
		{name: "the turn had ended: queued, hooked once", input: "C", noTurn: true, hooked: "C", said: "working on C;"},
		{name: "the turn had ended, blocked", input: "my SECRET", noTurn: true, blocked: true, hooked: "my SECRET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("stdin>>:" + log)},
				{Command: proctest.ShellCommand("exitifstdin:SECRET:2:no secrets")}, {Command: proctest.ShellCommand("exitifstdin:FAILME:1:hook broke")}}})
			if err != nil {
				t.Fatal(err)
			}
			release := make(chan struct{})
			c, sid := steerClient(t, &steerAgent{steers: tt.steers, ended: tt.ended, noTurn: tt.noTurn, release: release, ownHooks: ownHooks}, func(o *Options) {
				o.Settings, o.Skills = everywhere(Settings{Hooks: h}), fakeSkills{}
			})
			first := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("A")}})
			c.waitFor(t, func() bool { return strings.Contains(c.agentText(sid), "working on A;") })
			res, e := c.call("_session/steering", steerReq(sid, tt.input, false))
			var r schema.SteeringResponse
			_ = json.Unmarshal(res, &r)
			if tt.blocked != (e != nil) || e != nil && !strings.Contains(e.Message, "no secrets") || e == nil && (r.Outcome == schema.SteerInjected) != tt.injected {
				t.Fatalf("steering answered %+v, %v", r, e)
			}
			close(release)
			c.wait(first)
			c.waitFor(t, func() bool { return strings.Contains(c.agentText(sid), tt.said) })
			if text := c.agentText(sid); strings.Contains(text, "SECRET") {
				t.Fatalf("the agent got the blocked input: %q", text)
			}
			b, _ := os.ReadFile(log)
			var hooked []string
			for _, l := range bufioLines(b) {
				var in hooks.Input
				if json.Unmarshal([]byte(l), &in) == nil && in.Event == hooks.UserPromptSubmit {
					hooked = append(hooked, in.Prompt)
				}
			}
			if strings.Join(hooked, "|") != "A|"+tt.hooked {
				t.Fatalf("the prompt hooks saw %q, want A and %q once", hooked, tt.hooked)
			}
			c.must("session/close", map[string]any{"sessionId": sid}, nil)
			c.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, nil)
			for _, u := range c.updates(sid) {
				if u.UserMessageChunk != nil && strings.Contains(u.UserMessageChunk.Content.Text, "SECRET") {
					t.Fatalf("the history keeps %q", u.UserMessageChunk.Content.Text)
				}
			}
		})
	}
}
