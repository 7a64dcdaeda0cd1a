package acpclient

import (
	"fmt"
	"math"
	"testing"
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
