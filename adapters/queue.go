package adapters

import "sync"

// Queue carries one turn's events from an agent's reader to the front end.
// Emit never blocks: a reader that waited on a slow consumer would stop
// reading the agent, which then stalls on a full pipe. Events wait in
// memory, in order, until the consumer takes them; Events closes after the
// last one Close queued.
type Queue struct {
	out    chan Event
	wake   chan struct{}
	mu     sync.Mutex
	items  []Event
	closed bool
}

// NewQueue returns a queue whose events can be read from Events.
func NewQueue() *Queue {
	q := &Queue{out: make(chan Event), wake: make(chan struct{}, 1)}
	go q.pump()
	return q
}

// Events is the turn's event stream.
func (q *Queue) Events() <-chan Event { return q.out }

// Emit queues events; after Close it drops them.
func (q *Queue) Emit(evs ...Event) {
	if len(evs) == 0 {
		return
	}
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, evs...)
	}
	q.mu.Unlock()
	q.signal()
}

// Close queues the final events and closes the stream after them; only
// the first call counts.
func (q *Queue) Close(evs ...Event) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, evs...)
		q.closed = true
	}
	q.mu.Unlock()
	q.signal()
}

// Closed reports whether Close was called.
func (q *Queue) Closed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

func (q *Queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *Queue) pump() {
	for {
		q.mu.Lock()
		items, done := q.items, q.closed
		q.items = nil
		q.mu.Unlock()
		for _, ev := range items {
			q.out <- ev
		}
		if len(items) == 0 {
			if done {
				close(q.out)
				return
			}
			<-q.wake
		}
	}
}
