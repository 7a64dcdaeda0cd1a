package acp

import (
	"math"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// usage_update's cost is the session's so far (ACP: cumulative), whether
// the agent told each turn's cost or hub priced it: each turn's on top of
// the turns before, also after session/load.
func TestUsageUpdate_CostIsTheSessions(t *testing.T) {
	own := 0.25
	priced := (1000*2.50 + 100*10.00) / 1e6 // gpt-4o
	for _, tc := range []struct {
		name string
		turn []adapters.Event
		cost float64
	}{
		{"told by the agent", []adapters.Event{{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: 10, CostUSD: &own}}}, own},
		{"priced by hub", []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{Model: "gpt-4o"}},
			{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: 1000, OutputTokens: 100}}}, priced},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := append(tc.turn, adapters.Event{Type: adapters.EventText, Text: "done"}, adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn})
			reg := adapters.NewRegistry()
			reg.Register(&scripted{name: "first", events: events})
			c := startClient(t, Options{Registry: reg, DefaultAgent: "first", Logger: zerolog.Nop(), StateDir: t.TempDir()})
			sid, cwd := c.start(t)
			var told []float64
			for turn := 1; turn <= 3; turn++ {
				if turn == 3 {
					c.must("session/close", map[string]any{"sessionId": sid}, nil)
					c.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
				}
				if _, e := c.call("session/prompt", promptOf(sid, "go")); e != nil {
					t.Fatalf("prompt: %v", e)
				}
				var last float64
				for _, u := range c.updates(sid) {
					if u.Usage != nil && u.Usage.Cost != nil {
						last = u.Usage.Cost.Amount
					}
				}
				if told = append(told, last); math.Abs(last-float64(turn)*tc.cost) > 1e-12 {
					t.Fatalf("costs told after each turn %v, want each the sum so far ($%g a turn)", told, tc.cost)
				}
			}
		})
	}
}

func TestUsageUpdate_SentForContextOrCost(t *testing.T) {
	cost := 0.25
	tests := []struct {
		name     string
		u        *adapters.Usage
		sent     bool
		used     uint64
		size     uint64
		withCost bool
	}{
		{name: "context window", u: &adapters.Usage{InputTokens: 84, ContextSize: 1 << 20}, sent: true, used: 84, size: 1 << 20},
		{name: "cost without a context size", u: &adapters.Usage{InputTokens: 10, CostUSD: &cost}, sent: true, used: 10, withCost: true},
		{name: "tokens only, nothing to show", u: &adapters.Usage{InputTokens: 10, OutputTokens: 3}},
		{name: "nothing", u: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cost *float64
			if tc.u != nil {
				cost = tc.u.CostUSD
			}
			ups := usageUpdate(tc.u, cost)
			if (len(ups) == 1) != tc.sent {
				t.Fatalf("updates %+v, want sent %v", ups, tc.sent)
			}
			if !tc.sent {
				return
			}
			u := ups[0].Usage
			if u.Used != tc.used || u.Size != tc.size || (u.Cost != nil) != tc.withCost {
				t.Fatalf("usage update %+v, want used %d size %d cost %v", u, tc.used, tc.size, tc.withCost)
			}
		})
	}
}
