package conversation

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/hubdev/hub/adapters"
)

func TestMergeUsage_TotalsKeepTheLatest(t *testing.T) {
	cost := func(f float64) *float64 { return &f }
	tests := []struct {
		name string
		evs  []adapters.Usage
		want adapters.Usage
	}{
		{"totals", []adapters.Usage{{InputTokens: 10, OutputTokens: 5}, {InputTokens: 30, OutputTokens: 9, CostUSD: cost(0.5)}},
			adapters.Usage{InputTokens: 30, OutputTokens: 9, CostUSD: cost(0.5)}},
		{"per request", []adapters.Usage{{InputTokens: 10, OutputTokens: 5, PerRequest: true, ContextSize: 100}, {InputTokens: 10, OutputTokens: 5, PerRequest: true, CostUSD: cost(0.25)}},
			adapters.Usage{InputTokens: 20, OutputTokens: 10, ContextSize: 100, CostUSD: cost(0.25), PerRequest: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var acc *adapters.Usage
			for i := range tt.evs {
				acc = MergeUsage(acc, &tt.evs[i])
			}
			if !reflect.DeepEqual(*acc, tt.want) {
				t.Fatalf("got %+v, want %+v", *acc, tt.want)
			}
		})
	}
}

func TestPriceOf_ModelNames(t *testing.T) {
	for model, want := range map[string]float64{
		"gpt-4o": 2.50, "gpt-4o-mini": 0.15, "openai/gpt-4.1-mini-2025-04-14": 0.40, "claude-sonnet-4-5-20250929": 3.00, "mock-model": 0,
	} {
		p, ok := PriceOf(model)
		if ok != (want != 0) || p.Input != want {
			t.Errorf("PriceOf(%q) = %+v %v, want input %v", model, p, ok, want)
		}
	}
}

// The final answer is the text after the last tool call, else the last
// text before it; narration is what a tool call closes.
func TestDigest_FinalAnswerAndNarration(t *testing.T) {
	tool := func(id string) adapters.Event {
		return adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: id, Title: "run " + id, Kind: adapters.KindExecute}}
	}
	text := func(s string) adapters.Event { return adapters.Event{Type: adapters.EventText, Text: s} }
	tests := []struct {
		name      string
		evs       []adapters.Event
		answer    string
		narration []string
		tools     int
	}{
		{"after the last tool", []adapters.Event{text("looking"), tool("1"), text("done")}, "done", []string{"looking"}, 1},
		{"nothing after it", []adapters.Event{text("first"), tool("1"), text("second"), tool("2")}, "second", []string{"first", "second"}, 2},
		{"no tools", []adapters.Event{text("a"), text("b")}, "ab", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Digest
			var narr []string
			for _, ev := range tt.evs {
				if n := d.Note(ev); n != "" {
					narr = append(narr, n)
				}
			}
			if d.Answer() != tt.answer || !reflect.DeepEqual(narr, tt.narration) || len(d.ToolCalls) != tt.tools {
				t.Fatalf("answer %q narration %q tools %+v", d.Answer(), narr, d.ToolCalls)
			}
		})
	}
}

// Outside a repository the files changed are those the changing tool
// calls named, but not those every naming call failed to change: one the
// agent said failed, or one refused. A call the turn's end closed as
// failed (the agent never said) may have changed it, and so may a shell
// command the turn ran (hub cannot tell what it wrote).
func TestDigest_FilesChangedLeaveOutWhatFailed(t *testing.T) {
	edit := func(id string) adapters.Event {
		return adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: id, Kind: adapters.KindEdit, Locations: []adapters.Location{{Path: "/w/a.go"}}}}
	}
	failed := func(id string, said bool) adapters.Event {
		tc := &adapters.ToolCall{ID: id, Status: adapters.StatusFailed}
		if said {
			tc.RawOutput = []byte(`{"error":"no such tool"}`)
		}
		return adapters.Event{Type: adapters.EventToolUpdate, Tool: tc}
	}
	refused := adapters.Event{Type: adapters.EventDecision, Decision: &adapters.Decision{ToolID: "t1", Allowed: false, By: "rule"}}
	refusedShell := adapters.Event{Type: adapters.EventDecision, Decision: &adapters.Decision{ToolID: "t3", Allowed: false, By: "rule"}}
	shell := func(id string) adapters.Event {
		return adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: id, Kind: adapters.KindExecute, Title: "sed -i s/a/b/ a.go"}}
	}
	for _, tt := range []struct {
		name   string
		events []adapters.Event
		want   []string
	}{
		{"an edit", []adapters.Event{edit("t1")}, []string{"/w/a.go"}},
		{"the agent said it failed", []adapters.Event{edit("t1"), failed("t1", true)}, nil},
		{"refused", []adapters.Event{refused, edit("t1"), failed("t1", false)}, nil},
		{"closed by the turn's end", []adapters.Event{edit("t1"), failed("t1", false)}, []string{"/w/a.go"}},
		{"failed, then another worked", []adapters.Event{edit("t1"), failed("t1", true), edit("t2")}, []string{"/w/a.go"}},
		{"failed, then a shell command ran", []adapters.Event{edit("t1"), failed("t1", true), shell("t2")}, []string{"/w/a.go"}},
		{"failed, and a shell command refused", []adapters.Event{edit("t1"), failed("t1", true), refusedShell, shell("t3")}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &Digest{}
			for _, ev := range tt.events {
				d.Note(ev)
			}
			d.finish(context.Background(), nil, "", "")
			if got := d.Files(); !reflect.DeepEqual(got, append([]string{}, tt.want...)) {
				t.Fatalf("files changed %q, want %q", got, tt.want)
			}
		})
	}
}

// A repair turn (NextTurn) on a priced model adds its own cost to the
// first turn's: the sum is priced per turn, never left at the first's.
func TestDigest_NextTurnPricesEachTurn(t *testing.T) {
	p, ok := PriceOf("gpt-4o")
	if !ok {
		t.Fatal("gpt-4o has no price")
	}
	u := &adapters.Usage{InputTokens: 1000, OutputTokens: 100, PerRequest: true}
	d := &Digest{}
	d.Note(adapters.Event{Type: adapters.EventUsage, Usage: u})
	d.finish(context.Background(), nil, "gpt-4o", "")
	d.NextTurn()
	d.Note(adapters.Event{Type: adapters.EventUsage, Usage: u})
	d.finish(context.Background(), nil, "gpt-4o", "")
	want := 2 * p.Cost(u)
	if d.Usage == nil || d.Usage.InputTokens != 2000 || d.Usage.CostUSD == nil || math.Abs(*d.Usage.CostUSD-want) > 1e-12 {
		t.Fatalf("usage %+v cost %v, want 2000 input tokens costing %v", d.Usage, d.Usage.CostUSD, want)
	}
}
