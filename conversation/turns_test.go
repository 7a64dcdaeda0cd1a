package conversation

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// turnLog runs accepted turns as a front end does and notes what ran.
type turnLog struct {
	turns Turns
	mu    sync.Mutex
	ran   []string // in the order they ran
	drop  []string
}

func (l *turnLog) note(s string) { l.mu.Lock(); l.ran = append(l.ran, s); l.mu.Unlock() }

// run waits for turn's place, notes whether it ran, ends it and passes
// the order on.
func (l *turnLog) run(name string, turn *Turn) {
	if !l.turns.Await(turn) {
		l.mu.Lock()
		l.drop = append(l.drop, name)
		l.mu.Unlock()
		return
	}
	l.note(name)
	l.turns.End(turn)
	turn.Release()
}

// Turns run one at a time in the order they were accepted, whatever order
// their goroutines reach Await in; a cancel ends the running turn and
// drops the queued ones, and a turn accepted after it still waits for the
// turns before it to end.
func TestTurns_OrderAndCancel(t *testing.T) {
	tests := []struct {
		name string
		// cancelAfter cancels once this many turns were accepted; -1: never.
		cancelAfter   int
		want, dropped []string
	}{
		{name: "in the order accepted", cancelAfter: -1, want: []string{"1", "2", "3"}},
		{name: "a cancel drops the queued turns", cancelAfter: 2, want: []string{"3"}, dropped: []string{"1", "2"}},
		{name: "a cancel before the first ran drops it", cancelAfter: 1, want: []string{"2", "3"}, dropped: []string{"1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &turnLog{}
			var accepted []*Turn
			for i := range 3 {
				if i == tt.cancelAfter {
					if !l.turns.Cancel() {
						t.Fatal("Cancel saw no turn")
					}
				}
				accepted = append(accepted, l.turns.Accept(context.Background()))
			}
			var wg sync.WaitGroup
			for i, turn := range slices.Backward(accepted) { // the last turn's goroutine first
				wg.Go(func() { l.run([]string{"1", "2", "3"}[i], turn) })
			}
			wg.Wait()
			if slices.Sort(l.drop); !slices.Equal(l.ran, tt.want) || !slices.Equal(l.drop, tt.dropped) {
				t.Fatalf("ran %q, dropped %q; want %q, %q", l.ran, l.drop, tt.want, tt.dropped)
			}
			if l.turns.Busy() || l.turns.Cancel() {
				t.Fatal("turns still counted after they ended")
			}
		})
	}
}

// A turn waits while the one before it runs, even when cancelled: its
// answer comes after the running turn's, and it never runs.
func TestTurns_CancelledTurnKeepsTheOrder(t *testing.T) {
	var turns Turns
	first, second := turns.Accept(context.Background()), turns.Accept(context.Background())
	if !turns.Await(first) {
		t.Fatal("the first turn did not run")
	}
	turns.Cancel()
	if first.Context().Err() == nil || turns.Await(second) {
		t.Fatal("a cancel left the running turn or ran the queued one")
	}
	if turns.Idle(func() bool { return true }) {
		t.Fatal("idle while a turn runs")
	}
	third := turns.Accept(context.Background())
	ran := make(chan bool)
	go func() { ran <- turns.Await(third) }()
	turns.End(first)
	select {
	case <-ran:
		t.Fatal("a turn ran before the one before it passed the order on")
	default:
	}
	first.Release()
	if !<-ran {
		t.Fatal("the turn after a cancel did not run")
	}
}
