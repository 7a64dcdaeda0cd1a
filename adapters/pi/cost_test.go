package pi

import (
	"math"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// pi tells each message's cost: a turn's usage tells the sum of its own
// messages' (one pi process serves the session's turns).
func TestDecodePi_TurnCostIsItsMessages(t *testing.T) {
	d := NewPiDecoder(t.TempDir())
	msg := `{"type":"message_end","message":{"role":"assistant","stopReason":"stop","usage":{"input":4,"output":3,"cost":{"total":0.5}}}}`
	for turn, want := range []float64{1.0, 0.5} {
		lines := []string{`{"type":"agent_start"}`, msg}
		if turn == 0 {
			lines = append(lines, msg)
		}
		last := -1.0
		for _, l := range lines {
			for _, ev := range d.Decode([]byte(l)) {
				if ev.Type == adapters.EventUsage && ev.Usage.CostUSD != nil {
					last = *ev.Usage.CostUSD
				}
			}
		}
		if math.Abs(last-want) > 1e-12 {
			t.Fatalf("turn %d cost %g, want %g", turn+1, last, want)
		}
	}
}
