package claude

import (
	"fmt"
	"math"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// claude's total_cost_usd is the process's cost so far (one process per
// session): each turn's usage tells what that turn added.
func TestDecodeClaude_TurnCostIsWhatTheTotalAdded(t *testing.T) {
	d := NewClaudeDecoder()
	var got []float64
	for _, total := range []float64{0.01, 0.03, 0.03} {
		line := fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"result":"ok","total_cost_usd":%g,"usage":{"input_tokens":1,"output_tokens":1}}`, total)
		for _, ev := range d.Decode([]byte(line)) {
			if ev.Type == adapters.EventUsage && ev.Usage.CostUSD != nil {
				got = append(got, *ev.Usage.CostUSD)
			}
		}
	}
	want := []float64{0.01, 0.02, 0}
	if len(got) != len(want) {
		t.Fatalf("turn costs %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("turn costs %v, want %v", got, want)
		}
	}
}

// A claude started with --resume restores its session's cost, and its
// results count on from it: a turn's cost is still only what it added.
func TestSession_TurnCostAfterAResumeIsWhatItAdded(t *testing.T) {
	for _, resume := range []string{"", fakeSession} {
		_, s := startFake(t, "text", adapters.SessionOptions{ResumeID: resume})
		for turn := range 2 {
			u := find(collect(t, mustPrompt(t, s, "hi"), nil), adapters.EventUsage)
			if u == nil || u.Usage.CostUSD == nil || math.Abs(*u.Usage.CostUSD-0.01) > 1e-9 {
				t.Fatalf("resume %q, turn %d: usage %+v, want a cost of 0.01", resume, turn+1, u)
			}
		}
	}
}
