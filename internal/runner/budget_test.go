package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
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
			if s.ExitCode != ExitBudget || s.StopReason != adapters.StopMaxTokens || s.Budget != tc.want {
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
	if s.ExitCode != ExitUsage || !strings.Contains(s.Error, "mock-model") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d error %q, %d requests", s.ExitCode, s.Error, len(srv.Requests()))
	}
}
