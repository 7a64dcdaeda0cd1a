package acpclient

import (
	"fmt"
	"math"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// An ACP agent's usage_update cost is its session's so far: each turn's
// usage tells what the turn added (the last told before the turn began is
// its start), however many updates a turn sends.
func TestDecodeACP_TurnCostIsWhatTheSessionsAdded(t *testing.T) {
	d := NewACPDecoder()
	turns := [][]float64{{0.5}, {0.75, 1.25}, {}, {1.5}} // the session's cost as each update told it
	want := []float64{0.5, 0.75, 0, 0.25}
	for i, updates := range turns {
		d.EndTurn(nil) // the turn begins
		got := 0.0
		for _, amount := range updates {
			u := fmt.Sprintf(`{"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":%g,"currency":"USD"}}`, amount)
			for _, ev := range d.DecodeUpdate([]byte(u)) {
				if ev.Usage != nil && ev.Usage.CostUSD != nil {
					got = *ev.Usage.CostUSD // the turn's so far; the latest wins
				}
			}
		}
		d.EndTurn(nil)
		if math.Abs(got-want[i]) > 1e-12 {
			t.Fatalf("turn %d cost %g, want %g", i+1, got, want[i])
		}
	}
}

// The cost an agent tells between turns (here its session/load replay's,
// 2) moves the baseline and is no turn's: a turn that tells none cost
// nothing, one that tells 2.25 cost 0.25.
func TestSession_CostToldBetweenTurnsIsNoTurns(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{ResumeID: "old-7"})
	for _, tt := range []struct {
		prompt string
		want   float64
	}{{"hello", 0}, {"cost", 0.25}} {
		got := 0.0
		for _, ev := range prompt(t, s, tt.prompt, nil) {
			if ev.Type == adapters.EventUsage && ev.Usage.CostUSD != nil {
				got = *ev.Usage.CostUSD // the turn's so far; the latest wins
			}
		}
		if math.Abs(got-tt.want) > 1e-12 {
			t.Fatalf("turn %q cost %g, want %g", tt.prompt, got, tt.want)
		}
	}
}
