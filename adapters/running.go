package adapters

import (
	"sync"

	"github.com/hubdev/hub/internal/proc"
)

// Running holds a session's one running turn: Prompt starts it, the agent's reader emits
// to it, and its EventDone, End or Exited ends it. A session that keeps more state beside
// the turn starts it under its own lock, so that state and the turn change together.
type Running struct {
	mu   sync.Mutex
	turn *Turn
}

// Start starts a turn, or fails with ErrBusy while one runs.
func (r *Running) Start() (*Turn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.turn != nil {
		return nil, ErrBusy
	}
	r.turn = NewTurn()
	return r.turn, nil
}

// StartOn is Start for a session of name's long-lived process p: once p exited it
// refuses with its crash, wrapping closed (an ErrClosed).
func (r *Running) StartOn(p *proc.Process, name string, closed error) (*Turn, error) {
	if p.Exited() {
		return nil, CrashError(p, name, closed)
	}
	return r.Start()
}

// Current is the running turn, nil when the session is idle.
func (r *Running) Current() *Turn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.turn
}

// Cancelled reports whether a turn runs and was cancelled.
func (r *Running) Cancelled() bool {
	t := r.Current()
	return t != nil && t.IsCancelled()
}

// Emit hands ev to the running turn, which an EventDone ends. When idle it refuses what
// ev asks and reports false.
func (r *Running) Emit(ev Event) bool {
	switch t := r.Current(); {
	case t == nil:
		ev.Refuse()
		return false
	case ev.Type == EventDone:
		r.End(t, ev)
	default:
		t.Emit(ev)
	}
	return true
}

// End ends t with evs (the last an EventDone) and, if t still runs, makes the session
// idle; a nil t is nothing.
func (r *Running) End(t *Turn, evs ...Event) {
	if t == nil {
		return
	}
	r.mu.Lock()
	if r.turn == t {
		r.turn = nil
	}
	r.mu.Unlock()
	t.Close(evs...)
}

// Cancel marks the turn cancelled (its agent was asked to stop it); first says this call did.
func (t *Turn) Cancel() (first bool) {
	t.cancelOnce.Do(func() { close(t.cancelled); first = true })
	return first
}

func (t *Turn) Cancelled() <-chan struct{} { return t.cancelled }

func (t *Turn) IsCancelled() bool { return isClosed(t.cancelled) }

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Exited ends the running turn once the agent is gone: cancelled when hub stopped it,
// else with the crash's events.
func (r *Running) Exited(cancelled bool, crash ...Event) {
	if cancelled {
		crash = []Event{{Type: EventDone, StopReason: StopCancelled}}
	}
	r.End(r.Current(), crash...)
}
