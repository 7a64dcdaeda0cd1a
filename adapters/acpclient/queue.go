package acpclient

import (
	"sync"

	"github.com/hubdev/hub/adapters"
)

// turn is one running prompt. Events are queued without blocking (the
// JSON-RPC read loop must never wait on the consumer) and pumped to out;
// out is closed after the final EventDone.
type turn struct {
	out      chan adapters.Event
	mu       sync.Mutex
	items    []adapters.Event
	finished bool
	wake     chan struct{}

	cancelOnce sync.Once
	cancelled  chan struct{}
}

func newTurn() *turn {
	t := &turn{out: make(chan adapters.Event, 16), wake: make(chan struct{}, 1), cancelled: make(chan struct{})}
	go t.pump()
	return t
}

// emit queues events; after finish it drops them.
func (t *turn) emit(evs ...adapters.Event) {
	if len(evs) == 0 {
		return
	}
	t.mu.Lock()
	if !t.finished {
		t.items = append(t.items, evs...)
	}
	t.mu.Unlock()
	t.signal()
}

// finish queues the final done event and closes the stream after it.
func (t *turn) finish(evs ...adapters.Event) {
	t.mu.Lock()
	if !t.finished {
		t.items = append(t.items, evs...)
		t.finished = true
	}
	t.mu.Unlock()
	t.signal()
}

func (t *turn) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *turn) pump() {
	for {
		t.mu.Lock()
		items, done := t.items, t.finished
		t.items = nil
		t.mu.Unlock()
		for _, ev := range items {
			t.out <- ev
		}
		if len(items) == 0 {
			if done {
				close(t.out)
				return
			}
			<-t.wake
		}
	}
}

func (t *turn) cancel() { t.cancelOnce.Do(func() { close(t.cancelled) }) }

func (t *turn) isCancelled() bool {
	select {
	case <-t.cancelled:
		return true
	default:
		return false
	}
}
