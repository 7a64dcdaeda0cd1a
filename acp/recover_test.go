package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
)

// forgetful is an agent that may not resume: resume=false lacks the
// capability, failResume has it but every resume fails. "crash" kills the
// turn with a crash ("answer, then crash" after a word), "wait" waits for
// the cancel with no answer (waiting, when set, is closed as it does);
// every prompt's text is recorded. exited makes the next session start as
// one whose process exits at once: its prompt fails unseen.
type forgetful struct {
	resume, failResume, instructions, fork bool
	waiting                                chan struct{}
	started                                chan struct{} // when not nil, told of each start

	mu      sync.Mutex
	exited  bool
	starts  int
	prompts []string
	instr   []string // each start's Instructions
	opts    []adapters.SessionOptions
}

func (a *forgetful) Name() string { return "forgetful" }
func (a *forgetful) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Resume: a.resume || a.failResume, Instructions: a.instructions, Fork: a.fork}
}
func (a *forgetful) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	if a.failResume && o.ResumeID != "" {
		return nil, fmt.Errorf("forgetful cannot resume sessions: %w", adapters.ErrUnsupported)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.starts++
	a.instr = append(a.instr, o.Instructions)
	a.opts = append(a.opts, o)
	gone := a.exited
	a.exited = false
	if a.started != nil {
		a.started <- struct{}{}
	}
	return &forgetfulSession{a: a, gone: gone}, nil
}

func (a *forgetful) seen() (int, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.starts, append([]string(nil), a.prompts...)
}

type forgetfulSession struct {
	a    *forgetful
	gone bool
}

func (s *forgetfulSession) ID() string   { return "forgetful-1" }
func (s *forgetfulSession) Close() error { return nil }
func (s *forgetfulSession) Prompt(ctx context.Context, p []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	if s.gone { // as a write to a process that exited: a broken pipe
		return "", fmt.Errorf("forgetful: write prompt: %w", adapters.ErrClosed)
	}
	text := adapters.PromptText(p)
	s.a.mu.Lock()
	s.a.prompts = append(s.a.prompts, text)
	if strings.HasSuffix(text, "append to README") { // as a shell command would: no tool call names it
		_ = os.WriteFile(filepath.Join(s.a.opts[len(s.a.opts)-1].Cwd, "README"), []byte("more\n"), 0o644)
	}
	s.a.mu.Unlock()
	ch := make(chan adapters.Event, 5)
	if strings.HasSuffix(text, "edit parser.go") {
		ch <- adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Title: "Edit parser.go", Kind: adapters.KindEdit,
			Locations: []adapters.Location{{Path: osAbs("/repo/parser.go")}}}}
		ch <- adapters.Event{Type: adapters.EventPlan, Plan: []adapters.PlanEntry{{Content: "fix the parser", Priority: "high", Status: "in_progress"}}}
	}
	answer := adapters.Event{Type: adapters.EventText, Text: "answer to " + text[max(0, strings.LastIndex(text, "\n")+1):]}
	switch {
	case strings.HasSuffix(text, "wait"):
		close(s.a.waiting)
		<-ctx.Done()
		return adapters.StopCancelled, nil
	case strings.HasSuffix(text, "crash"):
		if strings.HasSuffix(text, "answer, then crash") {
			ch <- answer
		}
		if strings.HasSuffix(text, "retry, then crash") {
			ch <- adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "forgetful: API request failed", Status: 529, Retry: true}}
		}
		ch <- adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "forgetful exited: exit status 3", Code: adapters.CodeCrash, Fatal: true}}
	default:
		ch <- answer
	}
	ch <- adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
	close(ch)
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{})
}

// An agent that comes back after a crash without the conversation (it
// cannot resume, or its resume fails) gets hub's record with the next
// prompt, and the user is told.
func TestCrash_AgentWithoutResumeIsBriefed(t *testing.T) {
	for _, a := range []*forgetful{{}, {failResume: true}} {
		t.Run(fmt.Sprintf("resume capability %v", a.failResume), func(t *testing.T) {
			c := newClient(t, "", func(o *Options) {
				o.Registry = adapters.NewRegistry()
				o.Registry.Register(a)
				o.DefaultAgent = "forgetful"
			})
			sid, _ := c.start(t)
			c.prompt(sid, "remember the number 42")
			if _, e := c.call("session/prompt", promptOf(sid, "now crash")); e == nil || !strings.Contains(e.Message, "exit status 3") {
				t.Fatalf("the crashed turn answered %v; want its exit status", e)
			}
			c.prompt(sid, "what was the number?")
			starts, prompts := a.seen()
			last := prompts[len(prompts)-1]
			if starts != 2 || !strings.Contains(last, "remember the number 42") || !strings.HasSuffix(last, "what was the number?") {
				t.Fatalf("%d starts; the restarted agent's prompt %q lacks hub's record of the conversation", starts, last)
			}
			told := false
			for _, u := range c.updates(sid) {
				told = told || (u.AgentThoughtChunk != nil && strings.Contains(u.AgentThoughtChunk.Content.Text, "record of the conversation"))
			}
			if !told {
				t.Error("the user was not told the agent restarted without its context")
			}
		})
	}
}

// Three crashes within a minute stop the restarts with a clear error; a
// minute later the agent may start again.
func TestCrash_ThreeInAMinuteStopRestarts(t *testing.T) {
	a := &forgetful{resume: true}
	var mu sync.Mutex
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(a)
		o.DefaultAgent = "forgetful"
		o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	})
	sid, _ := c.start(t)
	for range 3 {
		if _, e := c.call("session/prompt", promptOf(sid, "crash")); e == nil {
			t.Fatal("a crash answered no error")
		}
	}
	startsBefore, _ := a.seen()
	_, e := c.call("session/prompt", promptOf(sid, "hello"))
	if e == nil || !strings.Contains(e.Message, "crashed 3 times") || !strings.Contains(e.Message, "forgetful") {
		t.Fatalf("the fourth prompt answered %v; want the crash-loop error naming the agent", e)
	}
	if starts, _ := a.seen(); starts != startsBefore {
		t.Fatalf("hub started the agent again (%d -> %d) while it crash-looped", startsBefore, starts)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	c.prompt(sid, "hello")
	if _, prompts := a.seen(); !strings.HasSuffix(prompts[len(prompts)-1], "hello") {
		t.Fatalf("after a minute the agent did not get the prompt: %q", prompts)
	}
}

// A crash loop stops restarts of the agent that crashed, not of the one
// the user switches to to get on with the work.
func TestCrash_SwitchAfterACrashLoopStartsTheNewAgent(t *testing.T) {
	first, second := &forgetful{resume: true}, &forgetful{}
	c, sid := twoAgents(t, first, second)
	for range 3 {
		if _, e := c.call("session/prompt", promptOf(sid, "crash")); e == nil {
			t.Fatal("a crash answered no error")
		}
	}
	if _, e := c.call("session/prompt", promptOf(sid, "hello")); e == nil || !strings.Contains(e.Message, "crashed 3 times") {
		t.Fatalf("the fourth prompt answered %v; want the crash-loop error", e)
	}
	switchTo(c, sid, "second")
	if _, e := c.call("session/prompt", promptOf(sid, "go on")); e != nil {
		t.Fatalf("the agent switched to after a crash loop was refused: %v", e)
	}
	if _, prompts := second.seen(); len(prompts) != 1 || !strings.HasSuffix(prompts[0], "go on") {
		t.Fatalf("the new agent's prompts %q", prompts)
	}
}

// Switching the agent hands the new one the conversation so far.
func TestSwitchAgent_CarriesTheConversation(t *testing.T) {
	first, second := &forgetful{}, &forgetful{}
	c, sid := twoAgents(t, first, second)
	c.prompt(sid, "the bug is in parser.go")
	switchTo(c, sid, "second")
	c.prompt(sid, "fix it")
	_, prompts := second.seen()
	if len(prompts) != 1 || !strings.Contains(prompts[0], "the bug is in parser.go") || !strings.Contains(prompts[0], "answer to the bug is in parser.go") {
		t.Fatalf("the new agent's first prompt %q lacks the earlier turn", prompts)
	}
}

// twoAgents serves first (default, "forgetful") and second (as "second").
func twoAgents(t *testing.T, first, second *forgetful) (*tclient, string) {
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(renamed{second, "second"})
	c := newClient(t, "", func(o *Options) { o.Registry, o.DefaultAgent = reg, "forgetful" })
	sid, _ := c.start(t)
	return c, sid
}

func switchTo(c *tclient, sid, agent string) {
	c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "agent", Value: json.RawMessage(`"` + agent + `"`)}, nil)
}

type renamed struct {
	*forgetful
	name string
}

func (r renamed) Name() string { return r.name }

// An agent with a system-level channel gets the briefing there, never as
// the user's words in its prompt.
func TestSwitchAgent_BriefingGoesThroughInstructions(t *testing.T) {
	first, second := &forgetful{}, &forgetful{instructions: true}
	c, sid := twoAgents(t, first, second)
	c.prompt(sid, "the bug is in parser.go")
	switchTo(c, sid, "second")
	c.prompt(sid, "fix it")
	second.mu.Lock()
	defer second.mu.Unlock()
	if len(second.instr) != 1 || !strings.Contains(second.instr[0], "the bug is in parser.go") {
		t.Fatalf("instructions %q lack the earlier turn", second.instr)
	}
	if len(second.prompts) != 1 || second.prompts[0] != "fix it" {
		t.Fatalf("prompt %q: want the user's words only", second.prompts)
	}
}

// Switching back to an agent resumes its own session and tells it only
// what happened while it was away.
func TestSwitchAgent_BackResumesAndBriefsWhatWasMissed(t *testing.T) {
	first, second := &forgetful{resume: true}, &forgetful{}
	c, sid := twoAgents(t, first, second)
	c.prompt(sid, "first question")
	switchTo(c, sid, "second")
	c.prompt(sid, "second question")
	switchTo(c, sid, "forgetful")
	c.prompt(sid, "third question")
	_, prompts := first.seen()
	last := prompts[len(prompts)-1]
	if !strings.Contains(last, "second question") || strings.Contains(last, "first question") || !strings.HasSuffix(last, "third question") {
		t.Fatalf("back on the first agent, its prompt %q: want only what it missed", last)
	}
}

// An agent left before it had seen any of the conversation (the user
// picked another agent first) is told all of it when switched back to:
// its session holds none of it.
func TestSwitchAgent_BackToOneLeftBeforeAnyTurnBriefsAll(t *testing.T) {
	first, second := &forgetful{resume: true}, &forgetful{}
	c, sid := twoAgents(t, first, second)
	switchTo(c, sid, "second")
	c.prompt(sid, "the bug is in parser.go")
	switchTo(c, sid, "forgetful")
	c.prompt(sid, "fix it")
	_, prompts := first.seen()
	if len(prompts) == 0 || !strings.Contains(prompts[len(prompts)-1], "the bug is in parser.go") {
		t.Fatalf("back on an agent left before any turn, its prompt %q lacks the conversation", prompts)
	}
}

// What an agent switched back to missed goes with the first prompt that
// reaches it: one it may not have read (it had exited while idle, or it
// crashed before telling anything) leaves the briefing for the next
// prompt, to the agent restarted resuming its session, and the user is
// told of it with the prompt that gave it. A prompt it read spent it,
// answered or not: it ended the turn on a cancel, or told it retried a
// model call before crashing, or answered before crashing. Else it would
// hear what it missed twice.
func TestSwitchAgent_BriefingWaitsForAPromptThatReachesTheAgent(t *testing.T) {
	tests := []struct {
		name   string
		exited bool   // the agent switched back to exits while idle
		prompt string // the first prompt back, which fails
		again  bool   // the next prompt carries the briefing
	}{
		{name: "exited while idle", exited: true, prompt: "third question", again: true},
		{name: "crashed before it told anything", prompt: "now crash", again: true},
		{name: "cancelled before it answered", prompt: "wait"},
		{name: "told it retries, then crashed", prompt: "retry, then crash"},
		{name: "crashed after it answered", prompt: "answer, then crash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, second := &forgetful{resume: true, waiting: make(chan struct{})}, &forgetful{}
			c, sid := twoAgents(t, first, second)
			c.prompt(sid, "first question")
			switchTo(c, sid, "second")
			c.prompt(sid, "second question")
			first.mu.Lock()
			first.exited = tt.exited
			first.mu.Unlock()
			switchTo(c, sid, "forgetful")
			told := func() (n int) {
				for _, u := range c.updates(sid) {
					if u.AgentThoughtChunk != nil && strings.Contains(u.AgentThoughtChunk.Content.Text, "record of the conversation") {
						n++
					}
				}
				return n
			}
			before, done := told(), c.async("session/prompt", promptOf(sid, tt.prompt))
			if tt.prompt == "wait" {
				<-first.waiting
				c.notify("session/cancel", schema.SessionIDRequest{SessionID: sid})
			}
			c.wait(done)
			if n := told() - before; n != btoi(!tt.again) {
				t.Fatalf("the user was told %d times that the briefing went with the failed prompt; want %d", n, btoi(!tt.again))
			}
			c.prompt(sid, "fourth question")
			_, prompts := first.seen()
			last := prompts[len(prompts)-1]
			if strings.Contains(last, "second question") != tt.again || strings.Contains(last, "first question") || !strings.HasSuffix(last, "fourth question") {
				t.Fatalf("the next prompt %q: want what the agent missed again %v", last, tt.again)
			}
			if n := told() - before; n != 1 {
				t.Errorf("the user was told %d times the agent got its briefing; want once", n)
			}
		})
	}
}

// An agent switched to for the first time that exited while idle, before
// the briefing of its start reached it, restarts afresh and briefed again
// (through its instructions, else ahead of the prompt), not resumed into
// the session that holds none of the conversation.
func TestSwitchAgent_FreshBriefingSurvivesAnIdleExit(t *testing.T) {
	for _, instructions := range []bool{false, true} {
		t.Run(fmt.Sprintf("instructions %v", instructions), func(t *testing.T) {
			first, second := &forgetful{}, &forgetful{resume: true, instructions: instructions, exited: true}
			c, sid := twoAgents(t, first, second)
			c.prompt(sid, "first question")
			switchTo(c, sid, "second")
			if _, e := c.call("session/prompt", promptOf(sid, "second question")); e == nil {
				t.Fatal("the prompt to the exited agent succeeded")
			}
			c.prompt(sid, "third question")
			second.mu.Lock()
			defer second.mu.Unlock()
			brief := second.instr[len(second.instr)-1] + second.prompts[len(second.prompts)-1]
			if len(second.opts) != 2 || second.opts[1].ResumeID != "" || !strings.Contains(brief, "first question") {
				t.Fatalf("starts %v, the restarted agent's instructions and prompt %q: want a fresh start briefed on the conversation", second.opts, brief)
			}
		})
	}
}

// An agent switched back to, then restarted for a setting before any
// prompt, still hears what it missed with its first prompt.
func TestSwitchAgent_BriefingSurvivesARestartForASetting(t *testing.T) {
	first, second := &forgetful{resume: true, started: make(chan struct{}, 8)}, &forgetful{}
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(renamed{second, "second"})
	c := newClient(t, "", func(o *Options) { o.Registry, o.DefaultAgent, o.Self = reg, "forgetful", "/usr/local/bin/hub" })
	sid, _ := c.start(t)
	c.prompt(sid, "first question")
	switchTo(c, sid, "second")
	c.prompt(sid, "second question")
	switchTo(c, sid, "forgetful")
	<-first.started // the session's start
	<-first.started // the warm start on the switch back: the setting now needs a restart
	c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "delegation", Value: json.RawMessage(`"on"`)}, nil)
	c.prompt(sid, "third question")
	starts, prompts := first.seen()
	if last := prompts[len(prompts)-1]; starts != 3 || !strings.Contains(last, "second question") {
		t.Fatalf("%d starts, the prompt %q: want the agent restarted and told what it missed", starts, last)
	}
}

// An agent switched back to still hears what it missed when hub restarts
// before a prompt reached it: the session loaded resumes it, briefed.
func TestSwitchAgent_BriefingSurvivesAHubRestart(t *testing.T) {
	first, second := &forgetful{resume: true}, &forgetful{}
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(renamed{second, "second"})
	c := newClient(t, "", func(o *Options) { o.Registry, o.DefaultAgent = reg, "forgetful" })
	sid, cwd := c.start(t)
	c.prompt(sid, "first question")
	switchTo(c, sid, "second")
	c.prompt(sid, "second question")
	switchTo(c, sid, "forgetful")
	c.close()
	c2 := startClient(t, Options{Registry: reg, StateDir: c.state, DefaultAgent: "forgetful"})
	c2.init(schema.ClientCapabilities{})
	c2.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
	c2.prompt(sid, "third question")
	_, prompts := first.seen()
	if last := prompts[len(prompts)-1]; !strings.Contains(last, "second question") || strings.Contains(last, "first question") {
		t.Fatalf("after hub restarted, the agent's prompt %q: want what it missed", last)
	}
}

// An agent switched to afresh whose briefing has not reached it when hub
// restarts (no prompt yet, or one it never read) is started afresh and
// briefed by the hub that loads the session, not resumed into its session
// that holds none of the conversation; once briefed, it is not briefed
// again.
func TestSwitchAgent_FreshBriefingSurvivesAHubRestart(t *testing.T) {
	for _, tt := range []struct {
		name         string
		instructions bool
		failed       bool // a prompt the agent never read came before the restart
	}{
		{"no prompt yet", false, false},
		{"no prompt yet, instructions", true, false},
		{"a prompt it never read", false, true},
		{"a prompt it never read, instructions", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			first, second := &forgetful{}, &forgetful{resume: true, instructions: tt.instructions, exited: tt.failed}
			reg := adapters.NewRegistry()
			reg.Register(first)
			reg.Register(renamed{second, "second"})
			c := newClient(t, "", func(o *Options) { o.Registry, o.DefaultAgent = reg, "forgetful" })
			sid, cwd := c.start(t)
			c.prompt(sid, "first question")
			switchTo(c, sid, "second")
			if tt.failed {
				if _, e := c.call("session/prompt", promptOf(sid, "second question")); e == nil {
					t.Fatal("the prompt to the exited agent succeeded")
				}
			}
			c.close()
			c2 := startClient(t, Options{Registry: reg, StateDir: c.state, DefaultAgent: "forgetful"})
			c2.init(schema.ClientCapabilities{})
			c2.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
			c2.prompt(sid, "third question")
			c2.prompt(sid, "fourth question")
			second.mu.Lock()
			defer second.mu.Unlock()
			n := len(second.opts)
			brief := second.instr[n-1] + second.prompts[len(second.prompts)-2]
			if second.opts[n-1].ResumeID != "" || !strings.Contains(brief, "first question") {
				t.Fatalf("after hub restarted: start %+v, instructions and prompt %q: want a fresh start briefed on the conversation", second.opts[n-1], brief)
			}
			if last := second.prompts[len(second.prompts)-1]; strings.Contains(last, "first question") {
				t.Fatalf("the prompt after the briefed one %q: the briefing went twice", last)
			}
		})
	}
}

// A turn an agent switched back to never answered, handed over to its
// fallback agent, leaves it what it missed: back on it, it hears the turns
// from where it left, not only those since the fallback.
func TestFallback_KeepsWhatTheAgentItLeftMissed(t *testing.T) {
	first, second := &forgetful{resume: true}, &forgetful{}
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(renamed{second, "second"})
	c := newClient(t, "", func(o *Options) {
		o.Registry, o.DefaultAgent, o.Fallback = reg, "forgetful", map[string][]string{"forgetful": {"second"}}
	})
	sid, _ := c.start(t)
	c.prompt(sid, "first question")
	switchTo(c, sid, "second")
	c.prompt(sid, "second question")
	first.mu.Lock()
	first.exited = true
	first.mu.Unlock()
	switchTo(c, sid, "forgetful")
	c.prompt(sid, "third question")
	if text := c.agentText(sid); !strings.Contains(text, "continuing with second") || !strings.HasSuffix(text, "answer to third question") {
		t.Fatalf("text %q: want the second agent to take the turn over", text)
	}
	switchTo(c, sid, "forgetful")
	c.prompt(sid, "fourth question")
	_, prompts := first.seen()
	last := prompts[len(prompts)-1]
	if !strings.Contains(last, "second question") || !strings.Contains(last, "answer to third question") || strings.Contains(last, "first question") {
		t.Fatalf("back on the first agent, its prompt %q: want all it missed, from the second question on", last)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The handover briefing carries the newest turn whole, older turns cut to
// their request and answer, the files changed, the plan and the MCP
// servers in use.
func TestSwitchAgent_BriefingHasFilesPlanAndBoundedOlderTurns(t *testing.T) {
	first, second := &forgetful{}, &forgetful{instructions: true}
	c, sid := twoAgents(t, first, second)
	long := strings.Repeat("a very long early request ", 100)
	c.prompt(sid, long)
	c.prompt(sid, "please edit parser.go")
	switchTo(c, sid, "second")
	c.prompt(sid, "go on")
	second.mu.Lock()
	instr := second.instr[0]
	second.mu.Unlock()
	for _, want := range []string{"## Files changed so far\n- " + osAbs("/repo/parser.go"), "## Current plan\n- [in_progress] fix the parser",
		"User: please edit parser.go", "[tools: Edit parser.go]", "Assistant: answer to please edit parser.go"} {
		if !strings.Contains(instr, want) {
			t.Errorf("briefing lacks %q:\n%s", want, instr)
		}
	}
	if strings.Contains(instr, long) || !strings.Contains(instr, "User: a very long early request") {
		t.Errorf("the older turn is not cut to its start:\n%s", instr)
	}
}

// handover = none starts an agent switched to blank.
func TestSwitchAgent_HandoverNoneStartsBlank(t *testing.T) {
	first, second := &forgetful{}, &forgetful{instructions: true}
	c, sid := twoAgents(t, first, second)
	if _, e := c.call("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "handover", Value: json.RawMessage(`"sometimes"`)}); e == nil {
		t.Fatal("an unknown handover value was accepted")
	}
	var r schema.SetSessionConfigOptionResponse
	c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "handover", Value: json.RawMessage(`"none"`)}, &r)
	if last := r.ConfigOptions[len(r.ConfigOptions)-1]; last.ID != "handover" || last.CurrentValue != "none" {
		t.Fatalf("options after the change: %+v", r.ConfigOptions)
	}
	c.prompt(sid, "the bug is in parser.go")
	switchTo(c, sid, "second")
	c.prompt(sid, "fix it")
	second.mu.Lock()
	defer second.mu.Unlock()
	if len(second.instr) != 1 || second.instr[0] != "" || second.prompts[0] != "fix it" {
		t.Fatalf("instructions %q prompts %q: want a blank start", second.instr, second.prompts)
	}
}

// The briefing names the skills the conversation used.
func TestSwitchAgent_BriefingNamesTheSkillsUsed(t *testing.T) {
	first, second := &forgetful{}, &forgetful{instructions: true}
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(renamed{second, "second"})
	c := newClient(t, "", func(o *Options) { o.Registry, o.DefaultAgent, o.Skills = reg, "forgetful", fakeSkills{} })
	sid, _ := c.start(t)
	c.prompt(sid, "/review parser.go")
	switchTo(c, sid, "second")
	c.prompt(sid, "go on")
	second.mu.Lock()
	defer second.mu.Unlock()
	if !strings.Contains(second.instr[0], "## Skills in use (the user's /commands)\n- review: Review code") {
		t.Fatalf("briefing lacks the skill used:\n%s", second.instr[0])
	}
}
