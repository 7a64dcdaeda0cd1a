package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/mockllm"
)

// A native agent that keeps calling tools is stopped by --max-tokens or
// --max-cost once the summed usage passes the limit: the turn is cancelled
// gracefully, the run exits 7 with stop reason max_tokens and the budget
// that stopped it.
func TestRun_BudgetsStopALoopingAgent(t *testing.T) {
	tests := []struct {
		name     string
		model    string
		usage    mockllm.OpenAIUsage
		mod      func(*Options)
		want     string // Summary.Budget
		requests int    // the request whose usage passes the limit
	}{
		{name: "tokens", model: "mock-model", usage: mockllm.OpenAIUsage{PromptTokens: 30, CompletionTokens: 10, TotalTokens: 40},
			mod: func(o *Options) { o.MaxTokens = 50 }, want: "tokens", requests: 2},
		{name: "cost from the price table", model: "gpt-4o-mini", usage: mockllm.OpenAIUsage{PromptTokens: 1_000_000, TotalTokens: 1_000_000},
			mod: func(o *Options) { o.MaxCost = 0.40 }, want: "cost", requests: 3}, // $0.15 a request
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var turns []mockllm.OpenAITurn
			for range 10 {
				u := tc.usage
				turns = append(turns, mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "glob", Args: `{"pattern":"*"}`}}, Usage: &u})
			}
			srv := mockllm.NewOpenAIServer(turns...)
			defer srv.Close()
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: tc.model, APIKey: "k", Stream: true}, openai.Options{}))
			var out, errb bytes.Buffer
			o := Options{Registry: reg, Agent: "openai", Cwd: t.TempDir(), Prompt: "loop", Format: FormatText,
				Stdout: &out, Stderr: &errb, Timeout: 20 * time.Second, Grace: 2 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()}
			tc.mod(&o)
			s := Run(context.Background(), o)
			if s.ExitCode != conversation.ExitBudget || s.StopReason != adapters.StopMaxTokens || s.Budget != tc.want {
				t.Fatalf("exit %d stop %q budget %q error %q\n%s", s.ExitCode, s.StopReason, s.Budget, s.Error, errb.String())
			}
			// The cancel lands while the loop goes on, so a request may
			// follow the one over the limit, never all ten.
			if n := len(srv.Requests()); n < tc.requests || n >= 10 {
				t.Fatalf("%d model requests, want the stop from request %d on", n, tc.requests)
			}
		})
	}
}

// An agent that reports its cost only at the end of a turn (claude), run
// on its "default" model: mid-turn per-request usage is priced by the
// model the agent said it uses, so --max-cost stops the loop.
func TestRun_MaxCostPricesTheModelTheAgentReports(t *testing.T) {
	tests := []struct {
		name, model string
		want        int
	}{
		{"a priced model", "claude-sonnet-4-5-20250929", conversation.ExitBudget},
		{"an unknown model", "mock-model", conversation.ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := func(_ context.Context, cancelled <-chan struct{}, out chan<- adapters.Event) {
				out <- adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{Model: tt.model}}
				for range 3 { // $0.03 a request at claude-sonnet-4's price
					out <- adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: 10_000, PerRequest: true}}
				}
				if tt.want == conversation.ExitBudget { // a loop goes on until cancelled
					<-cancelled
					out <- done(adapters.StopCancelled)
					return
				}
				out <- done(adapters.StopEndTurn)
			}
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{ReportsCost: true, DefaultModel: "default"}, script: script}
			s, _, errOut := runFake(t, context.Background(), a, func(o *Options) { o.MaxCost, o.Timeout = 0.05, 20*time.Second })
			if s.ExitCode != tt.want || (tt.want == conversation.ExitBudget && s.Budget != "cost") {
				t.Fatalf("exit %d budget %q (%s), want %d\n%s", s.ExitCode, s.Budget, s.Error, tt.want, errOut)
			}
		})
	}
}

// A budget passed by the turn's last usage report (claude's result, with
// its own cost) stops the run as surely as one passed mid-turn: exit 7,
// whichever of the turn's end and the cancel comes first.
func TestRun_BudgetPassedByTheLastReport(t *testing.T) {
	cost := 0.5
	tests := []struct {
		name  string
		usage adapters.Usage
		mod   func(*Options)
		want  string
	}{
		{"tokens", adapters.Usage{InputTokens: 80, OutputTokens: 40}, func(o *Options) { o.MaxTokens = 100 }, "tokens"},
		{"the agent's own cost", adapters.Usage{InputTokens: 1, CostUSD: &cost}, func(o *Options) { o.MaxCost = 0.1 }, "cost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := tt.usage
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{ReportsCost: true},
				script: steps(text("done"), adapters.Event{Type: adapters.EventUsage, Usage: &u}, done(adapters.StopEndTurn))}
			s, _, errOut := runFake(t, context.Background(), a, tt.mod)
			if s.ExitCode != conversation.ExitBudget || s.StopReason != adapters.StopMaxTokens || s.Budget != tt.want {
				t.Fatalf("exit %d stop %q budget %q (%s)\n%s", s.ExitCode, s.StopReason, s.Budget, s.Error, errOut)
			}
		})
	}
}

// The summary's cost and --max-cost are one figure (README): the agent's
// own report, else the price of the model asked for or, failing that, of
// the one the agent says it uses, whichever of the two the table prices.
func TestRun_CostIsTheOneMaxCostCounts(t *testing.T) {
	million := adapters.Usage{InputTokens: 1_000_000} // gpt-4o-mini $0.15, gpt-4o $2.50
	tests := []struct {
		name, asked, reported string
		usage                 adapters.Usage
		maxCost, wantCost     float64
		wantExit              int
	}{
		{"the model asked for first", "gpt-4o-mini", "gpt-4o", million, 0.2, 0.15, conversation.ExitOK},
		{"the model asked for, over the limit", "gpt-4o-mini", "gpt-4o", million, 0.1, 0.15, conversation.ExitBudget},
		{"the reported model when the asked one has no price", "default", "gpt-4o-mini", million, 0.2, 0.15, conversation.ExitOK},
		{"the agent's own report", "gpt-4o", "gpt-4o", adapters.Usage{InputTokens: 1_000_000, CostUSD: usd(0.05)}, 0.1, 0.05, conversation.ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{ReportsCost: true, DefaultModel: tt.asked},
				script: steps(adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{Model: tt.reported}},
					usageEvent(tt.usage), text("done"), done(adapters.StopEndTurn))}
			s, _, errOut := runFake(t, context.Background(), a, func(o *Options) { o.MaxCost = tt.maxCost })
			if s.ExitCode != tt.wantExit || s.Cost == nil || math.Abs(*s.Cost-tt.wantCost) > 1e-9 {
				t.Fatalf("exit %d cost %v (%s), want exit %d cost %v\n%s", s.ExitCode, s.Cost, s.Error, tt.wantExit, tt.wantCost, errOut)
			}
		})
	}
}

// --max-cost needs a price: an agent that reports no cost, on a model the
// table does not know, is a usage error before any request.
func TestRun_MaxCostWithoutAPriceIsAUsageError(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ok"})
	defer srv.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true}, openai.Options{}))
	var out, errb bytes.Buffer
	s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: t.TempDir(), Prompt: "hi", Format: FormatText,
		Stdout: &out, Stderr: &errb, Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir(), MaxCost: 1})
	if s.ExitCode != conversation.ExitUsage || !strings.Contains(s.Error, "mock-model") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d error %q, %d requests", s.ExitCode, s.Error, len(srv.Requests()))
	}
}

// Tool rounds, as hub counts them for an agent without a turn budget of
// its own: calls in flight together are one round; model output, or a
// call after every earlier one ended, opens the next.
func TestBudget_RoundsOfToolCalls(t *testing.T) {
	call := func(id string) adapters.Event {
		return adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: id, Status: adapters.StatusInProgress}}
	}
	end := func(id string) adapters.Event {
		return adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: id, Status: adapters.StatusCompleted}}
	}
	usage := adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: 1}}
	tests := []struct {
		name string
		evs  []adapters.Event
		want int
	}{
		{"none", []adapters.Event{text("hi")}, 0},
		{"parallel calls", []adapters.Event{text("reading"), call("a"), call("b"), end("a"), end("b")}, 1},
		{"sequential calls without words", []adapters.Event{call("a"), end("a"), call("b"), end("b"), call("c")}, 3},
		{"a usage report between", []adapters.Event{call("a"), usage, call("b")}, 2},
		{"words between", []adapters.Event{call("a"), text("next"), call("b")}, 2},
		{"a permission is no round", []adapters.Event{perm("a", adapters.KindEdit), call("a")}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBudget(Options{MaxTurns: 10}, "", true)
			for _, ev := range tt.evs {
				b.round(ev)
			}
			if b.rounds != tt.want {
				t.Fatalf("%d rounds, want %d", b.rounds, tt.want)
			}
		})
	}
}

// --max-turns for an agent that keeps no turn budget itself (codex,
// gemini, ACP agents): hub counts its tool rounds and cancels the turn
// once one passes the limit, exit 7 with stop reason max_turn_requests;
// an agent with a budget of its own gets the number and is not counted.
func TestRun_MaxTurnsCountsToolRounds(t *testing.T) {
	loop := func(rounds int, thenWait bool) fakeScript {
		return func(_ context.Context, cancelled <-chan struct{}, out chan<- adapters.Event) {
			for i := range rounds {
				id := "t" + string(rune('a'+i))
				out <- text("step ")
				out <- adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: id, Kind: adapters.KindRead, Status: adapters.StatusInProgress}}
				out <- adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: id, Status: adapters.StatusCompleted}}
			}
			if thenWait {
				<-cancelled
				out <- done(adapters.StopCancelled)
				return
			}
			out <- text("finished")
			out <- done(adapters.StopEndTurn)
		}
	}
	tests := []struct {
		name      string
		caps      adapters.Capabilities
		script    fakeScript
		max       int
		want      int
		cancelled bool
	}{
		{name: "a looping agent passes the limit", script: loop(5, true), max: 2, want: conversation.ExitBudget, cancelled: true},
		{name: "within the limit", script: loop(3, false), max: 3, want: conversation.ExitOK},
		{name: "the agent keeps its own budget", caps: adapters.Capabilities{TurnBudget: true}, script: loop(5, false), max: 2, want: conversation.ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &fakeAdapter{name: "fake", caps: tt.caps, script: tt.script}
			s, _, errOut := runFake(t, context.Background(), a, func(o *Options) { o.MaxTurns = tt.max })
			if s.ExitCode != tt.want {
				t.Fatalf("exit %d (%s), want %d\n%s", s.ExitCode, s.Error, tt.want, errOut)
			}
			if tt.want == conversation.ExitBudget && (s.StopReason != adapters.StopMaxTurnRequests || s.Budget != "turns" || !strings.Contains(s.Error, "--max-turns 2")) {
				t.Errorf("stop %q budget %q error %q", s.StopReason, s.Budget, s.Error)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.canceled != tt.cancelled {
				t.Errorf("turn cancelled %v, want %v", a.canceled, tt.cancelled)
			}
			if wantOpt := map[bool]int{true: tt.max}[tt.caps.TurnBudget]; a.opts.MaxTurns != wantOpt {
				t.Errorf("SessionOptions.MaxTurns %d, want %d", a.opts.MaxTurns, wantOpt)
			}
		})
	}
}

func usageEvent(u adapters.Usage) adapters.Event {
	return adapters.Event{Type: adapters.EventUsage, Usage: &u}
}

func usd(v float64) *float64 { return &v }

// The budgets are the run's, not each attempt's: what an attempt used
// before it failed in a way the next agent takes over (a 5xx, a rate
// limit, a crash) counts against the next one, and an attempt that used
// a budget up ends the run with exit 7 instead of starting the next agent.
func TestRun_BudgetSpansFallbackAttempts(t *testing.T) {
	http503 := adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{
		Message: "HTTP 503 Service Unavailable", Code: adapters.CodeProvider, Status: 503, Fatal: true}}
	tests := []struct {
		name          string
		first, second fakeScript
		mod           func(*Options)
		wantExit      int
		wantBudget    string
		wantAgent     string // the agent the summary names
		secondStarted bool
	}{
		{name: "tokens crossed only when summed", mod: func(o *Options) { o.MaxTokens = 100 },
			first:    steps(usageEvent(adapters.Usage{InputTokens: 50, OutputTokens: 10, PerRequest: true}), http503, done(adapters.StopEndTurn)),
			second:   steps(usageEvent(adapters.Usage{InputTokens: 50, OutputTokens: 10}), text("second answered"), done(adapters.StopEndTurn)),
			wantExit: conversation.ExitBudget, wantBudget: "tokens", wantAgent: "second", secondStarted: true},
		{name: "cost crossed only when summed", mod: func(o *Options) { o.MaxCost = 0.5 },
			first:    steps(usageEvent(adapters.Usage{InputTokens: 1, CostUSD: usd(0.3)}), crash(adapters.CodeRateLimit), done(adapters.StopEndTurn)),
			second:   steps(usageEvent(adapters.Usage{InputTokens: 1, CostUSD: usd(0.3)}), text("second answered"), done(adapters.StopEndTurn)),
			wantExit: conversation.ExitBudget, wantBudget: "cost", wantAgent: "second", secondStarted: true},
		{name: "tokens passed by the first attempt", mod: func(o *Options) { o.MaxTokens = 100 },
			first:    steps(usageEvent(adapters.Usage{InputTokens: 70, OutputTokens: 31, PerRequest: true}), http503, done(adapters.StopEndTurn)),
			second:   answer("second answered"),
			wantExit: conversation.ExitBudget, wantBudget: "tokens", wantAgent: "first"},
		{name: "cost passed by the first attempt", mod: func(o *Options) { o.MaxCost = 0.5 },
			first:    steps(usageEvent(adapters.Usage{InputTokens: 1, CostUSD: usd(0.51)}), crash(adapters.CodeCrash), done(adapters.StopEndTurn)),
			second:   answer("second answered"),
			wantExit: conversation.ExitBudget, wantBudget: "cost", wantAgent: "first"},
		// A budget used exactly is not passed (README: a run that passes
		// them stops): the next agent takes over, and stops at its first use.
		{name: "tokens used exactly by the first attempt", mod: func(o *Options) { o.MaxTokens = 100 },
			first:    steps(usageEvent(adapters.Usage{InputTokens: 70, OutputTokens: 30, PerRequest: true}), http503, done(adapters.StopEndTurn)),
			second:   answer("second answered"),
			wantExit: conversation.ExitOK, wantAgent: "second", secondStarted: true},
		{name: "cost used exactly by the first attempt", mod: func(o *Options) { o.MaxCost = 0.5 },
			first:    steps(usageEvent(adapters.Usage{InputTokens: 1, CostUSD: usd(0.5)}), crash(adapters.CodeCrash), done(adapters.StopEndTurn)),
			second:   steps(usageEvent(adapters.Usage{InputTokens: 1, CostUSD: usd(0.01)}), text("second answered"), done(adapters.StopEndTurn)),
			wantExit: conversation.ExitBudget, wantBudget: "cost", wantAgent: "second", secondStarted: true},
		{name: "budget left for the next agent", mod: func(o *Options) { o.MaxTokens = 100 },
			first:    steps(usageEvent(adapters.Usage{InputTokens: 50, OutputTokens: 10}), http503, done(adapters.StopEndTurn)),
			second:   answer("second answered"),
			wantExit: conversation.ExitOK, wantAgent: "second", secondStarted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps := adapters.Capabilities{ReportsCost: true}
			second := &fakeAdapter{name: "second", caps: caps, script: tt.second}
			s, _, stderr := runFake(t, context.Background(), &fakeAdapter{name: "first", caps: caps, script: tt.first}, func(o *Options) {
				o.Registry.Register(second)
				o.Fallback = []string{"second"}
				tt.mod(o)
			})
			if s.ExitCode != tt.wantExit || s.Budget != tt.wantBudget || s.Agent != tt.wantAgent {
				t.Fatalf("exit %d budget %q agent %q (%s), want %d %q %q\nstderr:\n%s",
					s.ExitCode, s.Budget, s.Agent, s.Error, tt.wantExit, tt.wantBudget, tt.wantAgent, stderr)
			}
			second.mu.Lock()
			defer second.mu.Unlock()
			if started := second.starts > 0; started != tt.secondStarted || len(s.Attempts) != map[bool]int{true: 2, false: 1}[started] {
				t.Fatalf("second started %v, want %v; attempts %+v", started, tt.secondStarted, s.Attempts)
			}
			if s.Attempts[0].Fallback != "" && !tt.secondStarted {
				t.Errorf("the first attempt handed over (%q) with the budget spent", s.Attempts[0].Fallback)
			}
		})
	}
}

// The --output-schema repair turn is a turn of the same run: it gets what
// the first turn left of each budget, also the cost of an agent the price
// table prices and the turns of an agent that keeps its own turn budget
// (per turn, so it would start afresh).
func TestRun_RepairTurnSharesTheBudget(t *testing.T) {
	rounds := func(ids string, then ...adapters.Event) fakeScript { // a round a tool call id
		var evs []adapters.Event
		for _, c := range ids {
			id := string(c)
			evs = append(evs, text("step "), adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: id, Kind: adapters.KindRead, Status: adapters.StatusInProgress}},
				adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: id, Status: adapters.StatusCompleted}})
		}
		return steps(append(evs, then...)...)
	}
	invalid, valid := text("Looks fine to me."), text(validReview)
	million := adapters.Usage{InputTokens: 1_000_000, PerRequest: true} // $0.15 at gpt-4o-mini's price
	tests := []struct {
		name       string
		caps       adapters.Capabilities
		mod        func(*Options)
		first      fakeScript
		repair     fakeScript
		wantBudget string
	}{
		{name: "cost the price table gives", caps: adapters.Capabilities{DefaultModel: "gpt-4o-mini"}, mod: func(o *Options) { o.MaxCost = 0.25 },
			first:      steps(usageEvent(million), invalid, done(adapters.StopEndTurn)),
			repair:     steps(usageEvent(million), valid, done(adapters.StopEndTurn)),
			wantBudget: "cost"},
		{name: "turns of an agent that keeps its own budget", caps: adapters.Capabilities{TurnBudget: true}, mod: func(o *Options) { o.MaxTurns = 2 },
			first:      rounds("ab", invalid, done(adapters.StopEndTurn)),
			repair:     rounds("c", valid, done(adapters.StopEndTurn)),
			wantBudget: "turns"},
		{name: "turns hub counts", mod: func(o *Options) { o.MaxTurns = 2 },
			first:      rounds("ab", invalid, done(adapters.StopEndTurn)),
			repair:     rounds("c", valid, done(adapters.StopEndTurn)),
			wantBudget: "turns"},
		{name: "tokens", mod: func(o *Options) { o.MaxTokens = 100 },
			first:      steps(usageEvent(adapters.Usage{InputTokens: 60}), invalid, done(adapters.StopEndTurn)),
			repair:     steps(usageEvent(adapters.Usage{InputTokens: 60}), valid, done(adapters.StopEndTurn)),
			wantBudget: "tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &fakeAdapter{name: "fake", caps: tt.caps, turns: []fakeScript{tt.first, tt.repair}, script: answer("unexpected prompt")}
			s, _, errOut := runFake(t, context.Background(), a, func(o *Options) {
				o.OutputSchema = json.RawMessage(reviewSchema)
				tt.mod(o)
			})
			a.mu.Lock()
			prompts := len(a.prompts)
			a.mu.Unlock()
			if s.ExitCode != conversation.ExitBudget || s.Budget != tt.wantBudget || prompts != 2 {
				t.Fatalf("exit %d budget %q (%s) after %d prompts, want exit %d budget %q after the repair turn\n%s",
					s.ExitCode, s.Budget, s.Error, prompts, conversation.ExitBudget, tt.wantBudget, errOut)
			}
		})
	}
}
