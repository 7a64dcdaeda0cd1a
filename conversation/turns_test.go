package conversation

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
)

// turnLog runs accepted turns as a front end does and notes which ran, in
// order, and which were dropped.
type turnLog struct {
	turns     Turns
	mu        sync.Mutex
	ran, drop []string
}

func (l *turnLog) run(name string, turn *Turn) {
	ok := l.turns.Await(turn)
	l.mu.Lock()
	if !ok {
		l.drop = append(l.drop, name)
		l.mu.Unlock()
		return
	}
	l.ran = append(l.ran, name)
	l.mu.Unlock()
	l.turns.End(turn)
	turn.Release()
}

// Turns run one at a time in the order they were accepted, though here
// the last turn's goroutine reaches Await first (synctest.Wait lets each
// go as far as it can before the next starts); a cancel ends the running
// turn and drops the queued ones, the first one too when it had not run,
// and a turn accepted after the cancel still runs after them.
func TestTurns_OrderAndCancel(t *testing.T) {
	tests := []struct {
		name string
		// cancelAt cancels before that turn is accepted; -1: never.
		cancelAt      int
		want, dropped []string
	}{
		{name: "in the order accepted", cancelAt: -1, want: []string{"1", "2", "3"}},
		{name: "a cancel drops the queued turns", cancelAt: 2, want: []string{"3"}, dropped: []string{"1", "2"}},
		{name: "a cancel before the first ran drops it", cancelAt: 1, want: []string{"2", "3"}, dropped: []string{"1"}},
	}
	for _, tt := range tests {
		synctest.Test(t, func(t *testing.T) {
			l := &turnLog{}
			var accepted []*Turn
			for i := range 3 {
				if i == tt.cancelAt && !l.turns.Cancel() {
					t.Fatal("Cancel saw no turn")
				}
				accepted = append(accepted, l.turns.Accept(context.Background()))
			}
			var wg sync.WaitGroup
			for i, turn := range slices.Backward(accepted) {
				wg.Go(func() { l.run([]string{"1", "2", "3"}[i], turn) })
				synctest.Wait()
			}
			wg.Wait()
			if slices.Sort(l.drop); !slices.Equal(l.ran, tt.want) || !slices.Equal(l.drop, tt.dropped) {
				t.Fatalf("%s: ran %q, dropped %q; want %q, %q", tt.name, l.ran, l.drop, tt.want, tt.dropped)
			}
			if l.turns.Busy() || l.turns.Cancel() {
				t.Fatalf("%s: turns still counted after they ended", tt.name)
			}
		})
	}
}

// A cancel ends the running turn's context and drops the queued one at
// once; a turn accepted after it waits until the running turn passed the
// order on, not only until it ended.
func TestTurns_CancelledTurnKeepsTheOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
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
		ran := make(chan bool, 1)
		go func() { ran <- turns.Await(third) }()
		turns.End(first)
		synctest.Wait()
		select {
		case <-ran:
			t.Fatal("a turn ran before the one before it passed the order on")
		default:
		}
		first.Release()
		if !<-ran {
			t.Fatal("the turn after a cancel did not run")
		}
	})
}

// A turn accepted after Close never runs: a prompt that races a session's
// close cannot start its agent again.
func TestTurns_AcceptedAfterCloseNeverRuns(t *testing.T) {
	var turns Turns
	first := turns.Accept(context.Background())
	turns.Close()
	late := turns.Accept(context.Background())
	for name, turn := range map[string]*Turn{"accepted before": first, "accepted after": late} {
		if turns.Await(turn) {
			t.Errorf("the turn %s Close runs", name)
		}
	}
	if turns.Busy() {
		t.Error("dropped turns still count as busy")
	}
}
