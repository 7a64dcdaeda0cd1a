package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
)

// countingAdapter wraps the replay adapter to watch agent starts: how many
// began, how many sessions are open, and what options they were set to. A
// gate holds Start until closed; hold holds a session's Close until
// closed; fail makes Start fail; surface is what started sessions report.
type countingAdapter struct {
	*replay.Adapter
	gate    chan struct{}
	hold    chan struct{}
	fail    error
	surface *adapters.Surface

	mu      sync.Mutex
	began   int
	open    int
	closed  int
	options []string
}

func (a *countingAdapter) Start(ctx context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	a.mu.Lock()
	a.began++
	a.mu.Unlock()
	if a.gate != nil {
		<-a.gate
	}
	if a.fail != nil {
		return nil, a.fail
	}
	s, err := a.Adapter.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.open++
	a.mu.Unlock()
	return &countingSession{Session: s.(*replay.Session), a: a}, nil
}

func (a *countingAdapter) counts() (began, open int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.began, a.open
}

func (a *countingAdapter) set() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.options...)
}

type countingSession struct {
	*replay.Session
	a    *countingAdapter
	once sync.Once
}

func (s *countingSession) Close() error {
	if s.a.hold != nil {
		<-s.a.hold
	}
	s.once.Do(func() { s.a.mu.Lock(); s.a.open--; s.a.closed++; s.a.mu.Unlock() })
	return s.Session.Close()
}

func (s *countingSession) Surface(ctx context.Context) (adapters.Surface, error) {
	if s.a.surface == nil {
		return adapters.Surface{}, adapters.ErrUnsupported
	}
	return *s.a.surface, nil
}

func (s *countingSession) SetOption(_ context.Context, id, value string) error {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	s.a.options = append(s.a.options, id+"="+value)
	return nil
}

func countingClient(t *testing.T, a *countingAdapter, mod ...func(*Options)) *tclient {
	t.Helper()
	return newClient(t, "", append([]func(*Options){func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(a)
	}}, mod...)...)
}

func waitedForAgent(t *testing.T, c *tclient, sid string) bool {
	t.Helper()
	res, e := c.call("session/prompt", promptReq(sid, "hi"))
	if e != nil {
		t.Fatalf("prompt failed: %v", e)
	}
	var r struct {
		Meta struct {
			Hub struct {
				WaitedForAgent *bool `json:"waitedForAgent"`
			} `json:"hub"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Meta.Hub.WaitedForAgent == nil {
		t.Fatalf("prompt response %s has no _meta.hub.waitedForAgent (%v)", res, err)
	}
	return *r.Meta.Hub.WaitedForAgent
}

func TestWarmStart_AgentIsUpBeforeTheFirstPrompt(t *testing.T) {
	a := &countingAdapter{Adapter: replay.New("")}
	c := countingClient(t, a)
	sid, _ := c.start(t)
	c.waitFor(t, func() bool { _, open := a.counts(); return open == 1 })
	if waitedForAgent(t, c, sid) {
		t.Fatal("the first prompt waited for an agent start; want the warm agent")
	}
	if began, _ := a.counts(); began != 1 {
		t.Fatalf("%d agent starts, want the warm one only", began)
	}
}

func TestWarmStart_PromptDuringTheStartJoinsIt(t *testing.T) {
	a := &countingAdapter{Adapter: replay.New(""), gate: make(chan struct{})}
	c := countingClient(t, a)
	sid, _ := c.start(t)
	c.waitFor(t, func() bool { began, _ := a.counts(); return began == 1 })
	reply := c.async("session/prompt", promptReq(sid, "hi"))
	close(a.gate)
	if m := c.wait(reply); m.Error != nil {
		t.Fatalf("prompt failed: %v", m.Error)
	}
	if began, _ := a.counts(); began != 1 {
		t.Fatalf("%d agent starts; a prompt during the warm start must wait for it, not begin another", began)
	}
}

func TestWarmStart_FailureIsReportedOnTheNextPromptWithoutRetries(t *testing.T) {
	a := &countingAdapter{Adapter: replay.New(""), fail: fmt.Errorf("no API key set: %w", adapters.ErrNotAuthenticated)}
	c := countingClient(t, a)
	sid, _ := c.start(t)
	c.waitFor(t, func() bool { began, _ := a.counts(); return began == 1 })
	_, e := c.call("session/prompt", promptReq(sid, "hi"))
	if e == nil || !strings.Contains(e.Message, "no API key set") {
		t.Fatalf("first prompt after a failed warm start answered %v; want the start's error", e)
	}
	if began, _ := a.counts(); began != 1 {
		t.Fatalf("%d starts before the second prompt; a failed warm start must not be retried on its own", began)
	}
	if _, e := c.call("session/prompt", promptReq(sid, "again")); e == nil {
		t.Fatal("second prompt succeeded with an agent that cannot start")
	}
	if began, _ := a.counts(); began != 2 {
		t.Fatalf("%d starts; the second prompt must try again, once", began)
	}
}

func TestWarmStart_CapHoldsWithFiftySessionsLoaded(t *testing.T) {
	state := t.TempDir()
	first := newClient(t, "", func(o *Options) { o.StateDir, o.WarmAgents = state, -1 })
	first.init(schema.ClientCapabilities{})
	cwd := t.TempDir()
	var ids []string
	for range 50 {
		id := first.newSession(cwd)
		first.prompt(id, "a turn, so the session is saved")
		ids = append(ids, id)
	}
	first.drain()

	a := &countingAdapter{Adapter: replay.New("")}
	c := countingClient(t, a, func(o *Options) { o.StateDir, o.WarmAgents = state, 3 })
	c.init(schema.ClientCapabilities{})
	var list schema.ListSessionsResponse
	c.must("session/list", schema.ListSessionsRequest{}, &list)
	if began, _ := a.counts(); began != 0 {
		t.Fatalf("listing sessions started %d agents", began)
	}
	for _, id := range ids {
		c.must("session/load", schema.LoadSessionRequest{SessionID: id, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
	}
	// A start may be given up before it began (a later load took its
	// slot), so fewer than 50 may begin; never more.
	c.waitFor(t, func() bool { _, open := a.counts(); return open == 3 })
	c.prompt(ids[0], "the least recently loaded session starts again on its prompt")
	c.waitFor(t, func() bool { _, open := a.counts(); return open == 3 }) // one idle agent made room
	if began, _ := a.counts(); began > 51 {
		t.Fatalf("%d agent starts for 50 loads and one prompt", began)
	}
}

func TestWarmStart_SwitchingTheAgentWarmsTheNewOne(t *testing.T) {
	one := &countingAdapter{Adapter: replay.New("")}
	two := &countingAdapter{Adapter: &replay.Adapter{AgentName: "two"}}
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(one)
		o.Registry.Register(two)
		o.DefaultAgent = "replay"
	})
	sid, _ := c.start(t)
	c.waitFor(t, func() bool { _, open := one.counts(); return open == 1 })
	c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "agent", Value: json.RawMessage(`"two"`)}, nil)
	c.waitFor(t, func() bool { _, open := two.counts(); return open == 1 })
	if _, open := one.counts(); open != 0 {
		t.Fatal("the old agent stayed up after the switch")
	}
}

// The new agent's start begins when the option changes, not once the old
// agent has exited: here the old one's Close waits for that start.
func TestWarmStart_SwitchStartsTheNewAgentBeforeClosingTheOld(t *testing.T) {
	one := &countingAdapter{Adapter: replay.New(""), hold: make(chan struct{})}
	two := &countingAdapter{Adapter: &replay.Adapter{AgentName: "two"}}
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(one)
		o.Registry.Register(two)
		o.DefaultAgent = "replay"
	})
	release := sync.OnceFunc(func() { close(one.hold) })
	t.Cleanup(release) // before the client's: a failed wait does not hang it
	sid, _ := c.start(t)
	c.waitFor(t, func() bool { _, open := one.counts(); return open == 1 })
	answer := c.async("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "agent", Value: json.RawMessage(`"two"`)})
	c.waitFor(t, func() bool { began, _ := two.counts(); return began == 1 })
	release()
	if m := c.wait(answer); m.Error != nil {
		t.Fatalf("switching to two: %+v", m.Error)
	}
}

func TestIdleTimeout_ClosesTheAgentAndTheNextPromptResumesIt(t *testing.T) {
	a := &countingAdapter{Adapter: replay.New("")}
	c := countingClient(t, a, func(o *Options) { o.IdleTimeout = time.Millisecond })
	sid, _ := c.start(t)
	c.waitFor(t, func() bool { a.mu.Lock(); defer a.mu.Unlock(); return a.began == 1 && a.closed == 1 })
	c.prompt(sid, "hi")
	starts := a.Starts()
	if len(starts) != 2 || starts[1].ResumeID != "replay-1" { // replay's id of the first start
		t.Fatalf("starts %+v: the prompt after the idle timeout must resume the closed agent's session", starts)
	}
}

func TestSurface_ReachesTheEditorBeforeAnyPrompt(t *testing.T) {
	sur := &adapters.Surface{
		Commands: []adapters.Command{{Name: "review", Description: "Review the diff"}},
		Options: []adapters.ConfigOption{
			{ID: adapters.OptionModel, Name: "Model", Category: "model", Value: "mock-model",
				Choices: []adapters.Option{{ID: "mock-model"}, {ID: "big-model"}}},
			{ID: adapters.OptionMode, Name: "Mode", Category: "mode", Value: "auto",
				Choices: []adapters.Option{{ID: "read-only"}, {ID: "auto"}, {ID: "full-access"}}},
			{ID: adapters.OptionEffort, Name: "Reasoning effort", Category: "thought_level", Value: "medium",
				Choices: []adapters.Option{{ID: "low"}, {ID: "medium"}, {ID: "high"}}},
		},
	}
	a := &countingAdapter{Adapter: replay.New(""), surface: sur}
	c := countingClient(t, a)
	sid, _ := c.start(t)
	c.waitFor(t, func() bool {
		for _, u := range c.updates(sid) {
			if u.AvailableCommands != nil && len(u.AvailableCommands.AvailableCommands) > 0 {
				return true
			}
		}
		return false
	})
	var cfg *schema.ConfigOptionUpdate
	var mode *schema.CurrentModeUpdate
	var cmds *schema.AvailableCommandsUpdate
	for _, u := range c.updates(sid) {
		switch {
		case u.ConfigOption != nil:
			cfg = u.ConfigOption
		case u.CurrentMode != nil:
			mode = u.CurrentMode
		case u.AvailableCommands != nil:
			cmds = u.AvailableCommands
		}
	}
	switch {
	case cfg == nil || valueOf(cfg.ConfigOptions, "model") != "mock-model" || valueOf(cfg.ConfigOptions, "effort") != "medium":
		t.Fatalf("config options before any prompt: %+v; want the agent's live model and effort", cfg)
	case mode == nil || mode.CurrentModeID != "auto":
		t.Fatalf("current mode update %+v, want auto", mode)
	case cmds == nil || len(cmds.AvailableCommands) != 1 || cmds.AvailableCommands[0].Name != "review":
		t.Fatalf("commands update %+v, want the agent's /review", cmds)
	}
	c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "effort", Value: json.RawMessage(`"high"`)}, nil)
	if got := a.set(); len(got) != 1 || got[0] != "effort=high" {
		t.Fatalf("options set on the agent: %v, want effort=high", got)
	}
	_, e := c.call("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "model", Value: json.RawMessage(`"replay-fast"`)})
	if e == nil {
		t.Fatal("a model the agent no longer offers was accepted")
	}
}

func valueOf(opts []schema.SessionConfigOption, id string) string {
	for _, o := range opts {
		if o.ID == id {
			return o.CurrentValue
		}
	}
	return ""
}

// Options.Notice (the project keys hub ignored) is said once per session.
func TestNotice_SaidOnceInEverySession(t *testing.T) {
	c := newClient(t, "", func(o *Options) { o.Settings = everywhere(Settings{Notice: "hub ignored agents.evil.command"}) })
	c.init(schema.ClientCapabilities{})
	for range 2 {
		sid := c.newSession(t.TempDir())
		c.waitFor(t, func() bool {
			n := 0
			for _, u := range c.updates(sid) {
				if u.AgentMessageChunk != nil && strings.Contains(u.AgentMessageChunk.Content.Text, "agents.evil.command") {
					n++
				}
			}
			return n == 1
		})
	}
}
