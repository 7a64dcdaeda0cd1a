package conversation

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// Turns runs a session's turns one at a time, in the order they were
// accepted; a cancel also drops the queued ones. Order puts the front end's
// changes between turns in the same order as the turns' starts.
type Turns struct {
	mu       sync.Mutex
	accepted []*Turn         // not ended, in order: the first runs or is next
	last     <-chan struct{} // closes when the last accepted turn ended
	ordered  <-chan struct{} // closes when the last ordered step took effect
	closed   bool            // Close was called: a turn accepted now never runs
}

type Turn struct {
	ctx    context.Context
	cancel context.CancelFunc
	after  <-chan struct{} // closes when the turn before it ended
	done   chan struct{}
}

var noWait <-chan struct{} = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (t *Turn) Context() context.Context { return t.ctx }

// Release lets the next turn start, once the front end answered this one.
func (t *Turn) Release() { close(t.done) }

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

// Await waits for the turns before turn and reports whether it runs now.
// A turn cancelled before it ran never runs; the next still waits.
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

func (t *Turns) End(turn *Turn) {
	turn.cancel()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.accepted = slices.DeleteFunc(t.accepted, func(o *Turn) bool { return o == turn })
}

// Cancel ends the running turn and drops the queued ones, if any.
func (t *Turns) Cancel() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, turn := range t.accepted {
		turn.cancel()
	}
	return len(t.accepted) > 0
}

// Close is Cancel for good: a turn accepted after it never runs.
func (t *Turns) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.Cancel()
}

func (t *Turns) Busy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.accepted) > 0
}

// Idle runs f unless a turn runs or waits; no turn is accepted meanwhile.
func (t *Turns) Idle(f func() bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.accepted) == 0 && f()
}

// Order gives a step its place: it waits for prev, then calls done once
// it took effect.
func (t *Turns) Order() (prev <-chan struct{}, done func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prev, next := cmp.Or(t.ordered, noWait), make(chan struct{})
	t.ordered = next
	return prev, func() { close(next) }
}
