package conversation

import (
	"slices"
	"sync"
	"time"
)

// Warm is what a front end's Agents share: a cap on the agents up or
// starting at once, kept by sleeping the least recently used idle ones
// first, and an idle timeout. The zero Warm (hub run's) neither caps nor sleeps.
type Warm struct {
	Limit int           // agents up or starting at once; <= 0: no warm starts and no cap
	Idle  time.Duration // <= 0: agents never sleep for idleness
	// admitMu makes counting, sleeping and starting one step, so two
	// agents started at once neither both take the last slot nor both
	// free one.
	admitMu sync.Mutex
	mu      sync.Mutex
	lru     []*Agent // least recently used first
}

// admit makes room for a, then launches it. The Naps it calls take their
// front ends' locks: the caller holds none.
func (w *Warm) admit(a *Agent, warm bool) {
	w.admitMu.Lock()
	defer w.admitMu.Unlock()
	others := w.touch(a, false)
	if w.Limit > 0 {
		others = slices.DeleteFunc(others, func(o *Agent) bool { return !o.Holds() })
		for i, holders := 0, len(others)+1; i < len(others) && holders > w.Limit; i++ {
			if others[i].Nap("warm agent cap") {
				holders--
			}
		}
	}
	a.Launch(warm)
}

// touch makes a the most recently used (or, with gone, forgets it) and
// returns the others, least recently used first.
func (w *Warm) touch(a *Agent, gone bool) []*Agent {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lru = slices.DeleteFunc(w.lru, func(o *Agent) bool { return o == a })
	others := slices.Clone(w.lru)
	if !gone {
		w.lru = append(w.lru, a)
	}
	return others
}

// LaunchWarm starts the agent session ahead of a prompt, within the cap.
func (a *Agent) LaunchWarm() {
	if a.Warm.Limit > 0 {
		a.Warm.admit(a, true)
	}
}

// Use marks the agent the most recently used, its idle timeout off.
func (a *Agent) Use() {
	a.rest(0)
	a.Warm.touch(a, false)
}

// Rest arms the idle timeout, which Use disarms.
func (a *Agent) Rest() { a.rest(a.Warm.Idle) }

func (a *Agent) rest(d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.idle != nil {
		a.idle.Stop()
	}
	if d > 0 && !a.closed {
		a.idle = time.AfterFunc(d, func() { a.Nap("idle timeout") })
	}
}
