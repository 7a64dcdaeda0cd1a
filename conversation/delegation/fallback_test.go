package delegation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// A continued delegate prompt a UserPromptSubmit hook blocks reached no
// agent: it stays out of the record a next agent is briefed with, as hub
// acp keeps a blocked prompt from its history.
func TestContinue_BlockedPromptIsKeptFromTheBrief(t *testing.T) {
	h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("exitifstdin:SECRET:2:no secrets")}}})
	if err != nil {
		t.Fatal(err)
	}
	quota := adapters.ErrorInfo{Code: adapters.CodeRateLimit, Message: "quota", Fatal: true}
	first, second := answers("first"), answers("second")
	first.script = [][]adapters.Event{first.events, {{Type: adapters.EventError, Error: &quota}}}
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(second)
	d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Hooks: h, Fallback: map[string][]string{"first": {"second"}}})
	defer d.Close()
	ctx := context.Background()
	r, err := d.Delegate(ctx, Request{Agent: "first", Prompt: "read the parser"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := d.Delegate(ctx, Request{Session: r.Session, Prompt: "my SECRET"}, nil); !strings.Contains(b.Error, "no secrets") {
		t.Fatalf("the blocked turn: %+v", b)
	}
	if c, err := d.Delegate(ctx, Request{Session: r.Session, Prompt: "now fix it"}, nil); err != nil || c.Agent != "second" {
		t.Fatalf("continue: %+v, %v; want second to take it over", c, err)
	}
	second.mu.Lock()
	got := second.got
	second.mu.Unlock()
	if len(got) != 1 || !strings.Contains(got[0], "read the parser") || strings.Contains(got[0], "SECRET") {
		t.Fatalf("the second agent's prompts %q: want the brief without the blocked prompt", got)
	}
}

// A delegate whose agent ignored a cancel is closed (it would run its
// tools on); a follow-up to it goes to a new session of the same agent,
// briefed on the conversation, not to the closed one.
func TestContinue_StuckDelegateRestartsBriefed(t *testing.T) {
	a := answers("fake")
	a.stuck = make(chan struct{})
	reg := adapters.NewRegistry()
	reg.Register(a)
	d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop()})
	defer d.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-a.stuck; cancel() }()
	r, err := d.Delegate(ctx, Request{Agent: "fake", Prompt: "read the parser"}, nil)
	if err != nil || r.Session == "" {
		t.Fatalf("the stuck turn: %+v, %v", r, err)
	}
	c, err := d.Delegate(context.Background(), Request{Session: r.Session, Prompt: "now fix it"}, nil)
	if err != nil || c.Error != "" || c.Session != r.Session || !strings.Contains(c.Answer, "fake answered") {
		t.Fatalf("follow-up: %+v, %v; want the agent restarted under the same session", c, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.starts != 2 || !strings.Contains(a.got[len(a.got)-1]+a.instructions[1], "read the parser") {
		t.Fatalf("%d sessions started, prompts %q: want a second, briefed", a.starts, a.got)
	}
}

// A delegate whose agent crashed is closed at once. A follow-up to it goes
// to a new session of the same agent, briefed, under the same session; a
// follow-up after three crashes within a minute starts none and says why
// and what to do, as hub acp does for its own agent (conversation.Crashes).
func TestContinue_CrashedDelegateIsClosedAndRestartsBriefed(t *testing.T) {
	crash := []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{Code: adapters.CodeCrash, Message: "fake exited with status 3", Fatal: true}}}
	tests := []struct {
		name   string
		script [][]adapters.Event
		starts int // after the crashes and one follow-up more
	}{
		{"once", [][]adapters.Event{crash, answers("fake").events}, 2},
		{"every time", [][]adapters.Event{crash}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := answers("fake")
			a.script, a.closes = tc.script, make(chan struct{}, 4)
			reg := adapters.NewRegistry()
			reg.Register(a)
			d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop()})
			defer d.Close()
			ctx := context.Background()
			r, err := d.Delegate(ctx, Request{Agent: "fake", Prompt: "read the parser"}, nil)
			if err != nil || !strings.Contains(r.Error, "exited with status 3") {
				t.Fatalf("the crashed turn: %+v, %v", r, err)
			}
			for crashes := 1; ; crashes++ {
				select {
				case <-a.closes:
				case <-time.After(10 * time.Second): // a hang guard, not a speed check
					t.Fatalf("the session that crashed (crash %d) was never closed", crashes)
				}
				c, err := d.Delegate(ctx, Request{Session: r.Session, Prompt: "now fix it"}, nil)
				switch {
				case crashes == 3:
					if !errors.Is(err, conversation.ErrCrashLoop) || !strings.Contains(err.Error(), "fix the cause") || strings.Contains(err.Error(), "\n") {
						t.Fatalf("a follow-up after 3 crashes: %+v, %v; want one line saying what to do", c, err)
					}
				case err != nil || c.Session != r.Session:
					t.Fatalf("follow-up %d: %+v, %v; want the agent restarted under the same session", crashes, c, err)
				case c.Error == "":
					if !strings.Contains(c.Answer, "fake answered") {
						t.Fatalf("follow-up %d answered %+v", crashes, c)
					}
				default:
					continue // it crashed again
				}
				break
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.starts != tc.starts || !strings.Contains(a.got[1]+a.instructions[1], "read the parser") {
				t.Fatalf("%d sessions started, prompts %q: want %d, the second briefed", a.starts, a.got, tc.starts)
			}
		})
	}
}

// fakeAgent is an agent of the fallback tests: one that is not ready, one
// that cannot start, or one whose turn is events (then waits for the
// turn's end when hang). It counts its prompts and its sessions closed.
type fakeAgent struct {
	name         string
	ready, start error
	events       []adapters.Event
	hang         bool
	// started, when set, is closed as the turn starts; the turn then
	// ends, when cancelled, as the agent crashing (killed), or with
	// stopsOnCancel as the agent ending it cancelled.
	started       chan struct{}
	stopsOnCancel bool
	// caps are its capabilities beyond permissions; script, when set, are
	// its turns' events by prompt (the last repeats); onStart runs as a
	// session starts.
	caps    adapters.Capabilities
	script  [][]adapters.Event
	onStart func()
	// stuck, when set, is closed as the first turn starts; that turn
	// does not stop when cancelled.
	stuck chan struct{}
	// resumeFails: a start that resumes a session fails.
	resumeFails bool
	// closes, when set, gets a value as each session closes.
	closes chan struct{}

	mu                      sync.Mutex
	prompts, closed, starts int
	// got are the prompts' texts and the sessions' instructions.
	got, instructions []string
	mcp               [][]adapters.MCPServer // each session's
	opts              []adapters.SessionOptions
}

// chainOf is a delegation chain of reg's agents by name.
func chainOf(reg *adapters.Registry, names []string) []adapters.Adapter {
	var out []adapters.Adapter
	for _, n := range names {
		a, _ := reg.Get(n)
		out = append(out, a)
	}
	return out
}

func answers(name string) *fakeAgent {
	return &fakeAgent{name: name, events: []adapters.Event{{Type: adapters.EventText, Text: name + " answered"},
		{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}}}
}

func fails(name string, e adapters.ErrorInfo, before ...adapters.Event) *fakeAgent {
	e.Fatal = true
	return &fakeAgent{name: name, events: append(before, adapters.Event{Type: adapters.EventError, Error: &e})}
}

func (a *fakeAgent) Name() string { return a.name }
func (a *fakeAgent) Capabilities() adapters.Capabilities {
	c := a.caps
	c.Permissions = true
	return c
}
func (a *fakeAgent) Ready() error { return a.ready }
func (a *fakeAgent) Start(_ context.Context, so adapters.SessionOptions) (adapters.Session, error) {
	if a.start != nil {
		return nil, a.start
	}
	if a.resumeFails && so.ResumeID != "" {
		return nil, errors.New("no such session")
	}
	a.mu.Lock()
	a.starts++
	a.instructions = append(a.instructions, so.Instructions)
	a.mcp = append(a.mcp, so.MCPServers)
	a.opts = append(a.opts, so)
	a.mu.Unlock()
	if a.onStart != nil {
		a.onStart()
	}
	return &fakeSession{a: a}, nil
}

func (a *fakeAgent) counts() (prompts, closed int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.prompts, a.closed
}

// fakeSession is dead once a turn ended in a crash: its process is gone.
type fakeSession struct {
	a            *fakeAgent
	closed, dead atomic.Bool
}

func (s *fakeSession) ID() string { return s.a.name + "-session" }
func (s *fakeSession) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.a.mu.Lock()
	s.a.closed++
	s.a.mu.Unlock()
	if s.a.closes != nil {
		s.a.closes <- struct{}{}
	}
	return nil
}

func (s *fakeSession) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	if s.closed.Load() || s.dead.Load() {
		return "", adapters.ErrClosed
	}
	s.a.mu.Lock()
	s.a.prompts++
	s.a.got = append(s.a.got, adapters.PromptText(prompt))
	events := s.a.events
	if n := len(s.a.script); n > 0 {
		events = s.a.script[min(s.a.prompts, n)-1]
	}
	stuck := s.a.stuck != nil && s.a.prompts == 1
	s.a.mu.Unlock()
	s.dead.Store(slices.ContainsFunc(events, func(ev adapters.Event) bool { return ev.Error != nil && ev.Error.Code == adapters.CodeCrash }))
	if stuck { // ignores the cancel
		close(s.a.stuck)
		<-ctx.Done()
		return adapters.StopCancelled, adapters.ErrCancelTimeout
	}
	if s.a.started != nil {
		close(s.a.started)
		<-ctx.Done()
		if s.a.stopsOnCancel {
			return adapters.StopCancelled, nil
		}
		return adapters.StopEndTurn, &adapters.TurnError{Info: adapters.ErrorInfo{Code: adapters.CodeCrash, Message: "killed", Fatal: true}}
	}
	ch := make(chan adapters.Event)
	go func() {
		defer close(ch)
		for _, ev := range events {
			select {
			case ch <- ev:
			case <-ctx.Done():
				return
			}
		}
		if s.a.hang {
			<-ctx.Done()
		}
	}()
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{})
}

// A delegate turn whose agent could not do the work, and started no tool
// call, is handed to the next agent of its fallback list that can run, by
// conversation's rule; the result names the agent that answered and why
// each before it did not.
func TestDelegate_FallsBackByTheRule(t *testing.T) {
	read := adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Name: "Read", Title: "Read a.go",
		Kind: adapters.KindRead, Status: adapters.StatusPending}}
	retry := adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "overloaded, retrying", Status: 529}}
	for _, tt := range []struct {
		name     string
		agents   []*fakeAgent // the first is delegated to
		fallback []string
		chain    []string
		// want is the agent that answered, fellBack why each before it
		// did not, failed whether its turn failed.
		want     string
		fellBack []string
		failed   bool
	}{
		{name: "not installed", agents: []*fakeAgent{{name: "first", ready: fmt.Errorf("%w: first not found", adapters.ErrNotInstalled)}, answers("second")},
			fallback: []string{"second"}, want: "second", fellBack: []string{"first is not installed"}},
		{name: "not logged in at start", agents: []*fakeAgent{{name: "first", start: adapters.ErrNotAuthenticated}, answers("second")},
			fallback: []string{"second"}, want: "second", fellBack: []string{"first is not logged in"}},
		{name: "rate-limited", agents: []*fakeAgent{fails("first", adapters.ErrorInfo{Code: adapters.CodeRateLimit, Message: "quota"}), answers("second")},
			fallback: []string{"second"}, want: "second", fellBack: []string{"first is rate-limited"}},
		{name: "a provider retrying past the bound", agents: []*fakeAgent{{name: "first", events: []adapters.Event{retry}, hang: true}, answers("second")},
			fallback: []string{"second"}, want: "second", fellBack: []string{"first's provider is failing"}},
		{name: "skips the chain and agents that cannot run", agents: []*fakeAgent{fails("first", adapters.ErrorInfo{Status: 401, Message: "unauthorized"}),
			answers("parent"), {name: "absent", ready: adapters.ErrNotInstalled}, answers("second")},
			fallback: []string{"parent", "unknown", "absent", "second"}, chain: []string{"parent"}, want: "second", fellBack: []string{"first is not logged in"}},
		{name: "through two fallbacks", agents: []*fakeAgent{fails("first", adapters.ErrorInfo{Code: adapters.CodeCrash, Message: "exit 2"}),
			fails("second", adapters.ErrorInfo{Status: 503, Message: "HTTP 503"}), answers("third")},
			fallback: []string{"second", "third"}, want: "third", fellBack: []string{"first crashed", "second's provider is failing"}},
		{name: "the last agent's failure stands", agents: []*fakeAgent{fails("first", adapters.ErrorInfo{Code: adapters.CodeRateLimit, Message: "quota"}),
			fails("second", adapters.ErrorInfo{Code: adapters.CodeRateLimit, Message: "quota"})},
			fallback: []string{"second"}, want: "second", fellBack: []string{"first is rate-limited"}, failed: true},
		{name: "not after a tool call started", agents: []*fakeAgent{fails("first", adapters.ErrorInfo{Code: adapters.CodeRateLimit, Message: "quota"}, read), answers("second")},
			fallback: []string{"second"}, want: "first", failed: true},
		{name: "not when the failure is the answer", agents: []*fakeAgent{fails("first", adapters.ErrorInfo{Code: adapters.CodeContext, Message: "too long"}), answers("second")},
			fallback: []string{"second"}, want: "first", failed: true},
		{name: "no fallback list", agents: []*fakeAgent{fails("first", adapters.ErrorInfo{Code: adapters.CodeRateLimit, Message: "quota"}), answers("second")},
			want: "first", failed: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := adapters.NewRegistry()
			for _, a := range tt.agents {
				reg.Register(a)
			}
			d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Chain: chainOf(reg, tt.chain),
				Fallback: map[string][]string{"first": tt.fallback}, ProviderTimeout: time.Millisecond})
			defer d.Close()
			var steps []string
			r, err := d.Delegate(context.Background(), Request{Agent: "first", Prompt: "do it", Timeout: 10 * time.Second}, func(m string) {
				if strings.HasPrefix(m, "hub: ") {
					steps = append(steps, m)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.Agent != tt.want || !slices.Equal(r.FellBack, tt.fellBack) || (r.Error != "") != tt.failed {
				t.Fatalf("answered by %q (error %q) after %q, want %q (failed %v) after %q", r.Agent, r.Error, r.FellBack, tt.want, tt.failed, tt.fellBack)
			}
			if !tt.failed && r.Answer != tt.want+" answered" {
				t.Errorf("answer %q, want %s's", r.Answer, tt.want)
			}
			if len(steps) != len(tt.fellBack) {
				t.Errorf("progress %q, want a line per fallback", steps)
			}
			for _, a := range tt.agents {
				if prompts, closed := a.counts(); a.name != tt.want && prompts != closed {
					t.Errorf("%s took %d prompts and closed %d sessions: a session handed over must end", a.name, prompts, closed)
				}
			}
		})
	}
}

// A delegate turn cancelled (the root turn was) ends there, even when
// its agent tells the cancel as a crash: no fallback agent runs it.
func TestDelegate_CancelledTurnDoesNotFallBack(t *testing.T) {
	first, second := &fakeAgent{name: "first", started: make(chan struct{})}, answers("second")
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(second)
	d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Fallback: map[string][]string{"first": {"second"}}})
	defer d.Close()
	go func() {
		<-first.started
		d.CancelTurns()
	}()
	r, _ := d.Delegate(context.Background(), Request{Agent: "first", Prompt: "do it"}, nil)
	if p, _ := second.counts(); r.Agent != "first" || r.FellBack != nil || p != 0 {
		t.Fatalf("answered by %q after %q, second took %d prompts; want the cancelled turn to stand", r.Agent, r.FellBack, p)
	}
}

// A delegate session that fell back continues on the agent that answered.
func TestDelegate_ContinuesOnTheAgentThatAnswered(t *testing.T) {
	first, second := fails("first", adapters.ErrorInfo{Status: 401, Message: "unauthorized"}), answers("second")
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(second)
	d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Fallback: map[string][]string{"first": {"second"}}})
	defer d.Close()
	r, err := d.Delegate(context.Background(), Request{Agent: "first", Prompt: "do it"}, nil)
	if err != nil || r.Agent != "second" {
		t.Fatalf("delegate: %+v, %v; want second to answer", r, err)
	}
	c, err := d.Delegate(context.Background(), Request{Session: r.Session, Prompt: "and then"}, nil)
	if err != nil || c.Agent != "second" || c.Answer != "second answered" {
		t.Fatalf("continue: %+v, %v; want second's answer", c, err)
	}
	if p, _ := first.counts(); p != 1 {
		t.Errorf("first took %d prompts, want the first turn's only", p)
	}
	if p, _ := second.counts(); p != 2 {
		t.Errorf("second took %d prompts, want both turns", p)
	}
}

// A continued delegate conversation falls back as a new one does: the
// next agent takes it over under the same session, briefed on the
// conversation so far through its instructions when it takes them, else
// ahead of the prompt, once; later turns go to it.
func TestContinue_FallsBackBriefed(t *testing.T) {
	quota := adapters.ErrorInfo{Code: adapters.CodeRateLimit, Message: "quota", Fatal: true}
	for _, instructions := range []bool{true, false} {
		t.Run(fmt.Sprintf("instructions %v", instructions), func(t *testing.T) {
			first, second := answers("first"), answers("second")
			first.script = [][]adapters.Event{first.events, {{Type: adapters.EventError, Error: &quota}}}
			second.caps.Instructions = instructions
			reg := adapters.NewRegistry()
			reg.Register(first)
			reg.Register(second)
			d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Fallback: map[string][]string{"first": {"second"}}})
			defer d.Close()
			ctx := context.Background()
			r, err := d.Delegate(ctx, Request{Agent: "first", Prompt: "read the parser"}, nil)
			if err != nil || r.Agent != "first" {
				t.Fatalf("delegate: %+v, %v; want first to answer", r, err)
			}
			c, err := d.Delegate(ctx, Request{Session: r.Session, Prompt: "now fix it"}, nil)
			if err != nil || c.Agent != "second" || !slices.Equal(c.FellBack, []string{"first is rate-limited"}) || c.Session != r.Session || c.Answer != "second answered" {
				t.Fatalf("continue: %+v, %v; want second to answer session %s after first's rate limit", c, err, r.Session)
			}
			if c, err = d.Delegate(ctx, Request{Session: r.Session, Prompt: "and test it"}, nil); err != nil || c.Agent != "second" || c.FellBack != nil {
				t.Fatalf("later continue: %+v, %v; want second's turn", c, err)
			}
			second.mu.Lock()
			got, given := second.got, second.instructions
			second.mu.Unlock()
			lead := strings.TrimSuffix(got[0], "now fix it")
			if (given[0] != "") != instructions || (lead != "") == instructions || got[1] != "and test it" {
				t.Fatalf("instructions %q, prompts %q: want the brief once, as instructions %v", given, got, instructions)
			}
			if brief := given[0] + lead; !strings.Contains(brief, "read the parser") || !strings.Contains(brief, "first answered") || strings.Contains(brief, "now fix it") {
				t.Errorf("brief %q, want the conversation so far", brief)
			}
			if p, closed := first.counts(); p != 2 || closed != 1 {
				t.Errorf("first took %d prompts and closed %d sessions; want 2, its session ended", p, closed)
			}
		})
	}
}

// The next agent that took a delegate conversation over keeps the brief
// ahead of its prompts until one reached it: a turn it failed or crashed
// in before it answered leaves it for the next turn; one it answered
// before failing, or ended on the cancel (it read the prompt), spent it.
func TestContinue_LeadWaitsForATurnTheAgentAnswered(t *testing.T) {
	quota := adapters.ErrorInfo{Code: adapters.CodeRateLimit, Message: "quota", Fatal: true}
	overloaded := adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Code: adapters.CodeAgent, Message: "overloaded", Fatal: true}}
	tests := []struct {
		name  string
		turn  []adapters.Event // the taking-over agent's first turn, ended by cancelling it when nil
		again bool             // its next prompt carries the brief
		stops bool             // the cancelled turn ends as cancelled, not as a crash
	}{
		{name: "failed before it answered", turn: []adapters.Event{overloaded}, again: true},
		{name: "killed on the cancel before it answered", again: true},
		{name: "ended the turn on the cancel before it answered", stops: true},
		{name: "failed after it answered", turn: []adapters.Event{{Type: adapters.EventText, Text: "looking"}, overloaded}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, second := answers("first"), answers("second")
			first.script = [][]adapters.Event{first.events, {{Type: adapters.EventError, Error: &quota}}}
			second.script = [][]adapters.Event{tt.turn, second.events}
			reg := adapters.NewRegistry()
			reg.Register(first)
			reg.Register(second)
			d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Fallback: map[string][]string{"first": {"second"}}})
			defer d.Close()
			ctx := context.Background()
			r, err := d.Delegate(ctx, Request{Agent: "first", Prompt: "read the parser"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.turn == nil {
				second.started, second.stopsOnCancel = make(chan struct{}), tt.stops
				go func() {
					<-second.started
					d.CancelTurns()
				}()
			}
			if c, _ := d.Delegate(ctx, Request{Session: r.Session, Prompt: "now fix it"}, nil); c.Agent != "second" || c.Error == "" && c.StopReason != string(adapters.StopCancelled) {
				t.Fatalf("continue: %+v; want second to take it over and fail or be cancelled", c)
			}
			second.started = nil
			if c, err := d.Delegate(ctx, Request{Session: r.Session, Prompt: "and test it"}, nil); err != nil || c.Answer != "second answered" {
				t.Fatalf("later continue: %+v, %v; want second's answer", c, err)
			}
			second.mu.Lock()
			got := second.got
			second.mu.Unlock()
			if len(got) != 2 || strings.Contains(got[1], "read the parser") != tt.again || !strings.HasSuffix(got[1], "and test it") {
				t.Fatalf("the second agent's prompts %q: want the brief again %v", got, tt.again)
			}
		})
	}
}

// A cancel that lands between one agent's failure and the next agent's
// start, or while the next agent starts, ends the delegate turn as
// cancelled: no further agent takes the prompt, and one starting ends.
func TestDelegate_CancelBetweenAgentsStartsNone(t *testing.T) {
	for _, duringStart := range []bool{false, true} {
		t.Run(fmt.Sprintf("during start %v", duringStart), func(t *testing.T) {
			first, second := fails("first", adapters.ErrorInfo{Code: adapters.CodeRateLimit, Message: "quota"}), answers("second")
			reg := adapters.NewRegistry()
			reg.Register(first)
			reg.Register(second)
			d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Fallback: map[string][]string{"first": {"second"}}})
			defer d.Close()
			progress := func(m string) {
				if strings.HasPrefix(m, "hub: ") && !duringStart {
					d.CancelTurns() // as hub hands the turn over
				}
			}
			if duringStart {
				second.onStart = d.CancelTurns
			}
			r, err := d.Delegate(context.Background(), Request{Agent: "first", Prompt: "do it"}, progress)
			second.mu.Lock()
			prompts, starts, closed := second.prompts, second.starts, second.closed
			second.mu.Unlock()
			if err != nil || r.StopReason != string(adapters.StopCancelled) || prompts != 0 || closed != starts || (starts != 0) != duringStart {
				t.Fatalf("%+v, %v; second started %d, took %d prompts, closed %d: want the turn cancelled, no prompt, no session left",
					r, err, starts, prompts, closed)
			}
		})
	}
}
