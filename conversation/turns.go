package conversation

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// Turns is the order of a session's turns: one runs at a time, in the
// order they were accepted, and a cancel ends the running turn and drops
// the queued ones, which never reach the agent. Order puts the front end's
// changes between turns in the same order as the turns' starts.
type Turns struct {
	mu       sync.Mutex
	accepted []*Turn         // not ended, in order: the first runs or is next
	last     <-chan struct{} // closes when the last accepted turn ended
	ordered  <-chan struct{} // closes when the last ordered step took effect
	closed   bool            // Close was called: a turn accepted now never runs
}

// Turn is one accepted turn.
type Turn struct {
	ctx    context.Context
	cancel context.CancelFunc
	after  <-chan struct{} // closes when the turn before it ended
	done   chan struct{}
}

// noWait is what the first turn and the first ordered step wait for.
var noWait <-chan struct{} = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Context is the turn's: a cancel or the turn's end cancels it.
func (t *Turn) Context() context.Context { return t.ctx }

// Release lets the next turn start, once the front end answered this one
// (so answers keep the order of the prompts).
func (t *Turn) Release() { close(t.done) }

// Accept queues a turn behind the ones accepted before it.
func (t *Turns) Accept(ctx context.Context) *Turn {
	t.mu.Lock()
	defer t.mu.Unlock()
	turn := &Turn{after: cmp.Or(t.last, noWait), done: make(chan struct{})}
	turn.ctx, turn.cancel = context.WithCancel(ctx)
	t.last = turn.done
	t.accepted = append(t.accepted, turn)
	if t.closed {
		turn.cancel()
	}
	return turn
}

// Await waits until the turns before turn ended and reports whether it
// runs now. A turn cancelled before it ran is dropped: it never runs, and
// the turn after it still waits for the ones before.
func (t *Turns) Await(turn *Turn) bool {
	select {
	case <-turn.after:
	case <-turn.ctx.Done():
	}
	if turn.ctx.Err() == nil {
		return true
	}
	t.End(turn)
	go func() { <-turn.after; turn.Release() }()
	return false
}

// End ends turn: its context is cancelled and it no longer counts.
func (t *Turns) End(turn *Turn) {
	turn.cancel()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.accepted = slices.DeleteFunc(t.accepted, func(o *Turn) bool { return o == turn })
}

// Cancel ends the running turn and drops the queued ones. It reports
// whether there were any.
func (t *Turns) Cancel() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, turn := range t.accepted {
		turn.cancel()
	}
	return len(t.accepted) > 0
}

// Close cancels as Cancel does, for good: a turn accepted after it never
// runs, whatever the timing of a prompt and the session's close.
func (t *Turns) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.Cancel()
}

// Busy says whether a turn runs or waits.
func (t *Turns) Busy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.accepted) > 0
}

// Idle runs f, unless a turn runs or waits, as one step with Accept: no
// turn is accepted while it runs. It returns what f did, false when busy.
func (t *Turns) Idle(f func() bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.accepted) == 0 && f()
}

// Order gives a step its place in the order: it waits for prev, then calls
// done once it took effect.
func (t *Turns) Order() (prev <-chan struct{}, done func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prev, next := cmp.Or(t.ordered, noWait), make(chan struct{})
	t.ordered = next
	return prev, func() { close(next) }
}
