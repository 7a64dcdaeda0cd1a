package adapters

import (
	"context"
	"strconv"
	"sync"
)

// Replies are the requests hub sent an agent that wait for its reply, by request id: the
// agent's reader answers them, and once the agent is gone Close answers the rest and
// refuses new ones. The zero value is ready.
type Replies[T any] struct {
	mu     sync.Mutex
	seq    int
	waits  map[string]func(T, error)
	closed error
}

// NewID is a new request's id: prefix and a number no earlier NewID gave.
func (r *Replies[T]) NewID(prefix string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	return prefix + strconv.Itoa(r.seq)
}

// Await keeps reply for request id; it is false once Close ran.
func (r *Replies[T]) Await(id string, reply func(T, error)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed != nil {
		return false
	}
	if r.waits == nil {
		r.waits = map[string]func(T, error){}
	}
	r.waits[id] = reply
	return true
}

// Answer runs the reply request id waits for, if any, with v and err.
func (r *Replies[T]) Answer(id string, v T, err error) bool {
	r.mu.Lock()
	reply, ok := r.waits[id]
	delete(r.waits, id)
	r.mu.Unlock()
	if ok {
		reply(v, err)
	}
	return ok
}

// Close answers every waiting request with err, and refuses new ones.
func (r *Replies[T]) Close(err error) {
	r.mu.Lock()
	waits := r.waits
	r.waits, r.closed = nil, err
	r.mu.Unlock()
	var zero T
	for _, reply := range waits {
		reply(zero, err)
	}
}

// Call sends request id and waits for its reply, ctx's end or Close; once Close ran it
// sends nothing (ErrClosed).
func (r *Replies[T]) Call(ctx context.Context, id string, send func() error) (T, error) {
	type reply struct {
		v   T
		err error
	}
	ch := make(chan reply, 1)
	var zero T
	if !r.Await(id, func(v T, err error) { ch <- reply{v, err} }) {
		return zero, ErrClosed
	}
	err := send()
	if err == nil {
		select {
		case got := <-ch:
			return got.v, got.err
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	r.Answer(id, zero, nil) // forgets it
	return zero, err
}
