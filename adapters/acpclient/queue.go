package acpclient

import (
	"sync"

	"github.com/hubdev/hub/adapters"
)

// turn is one running prompt: its events (an adapters.Turn, so the
// JSON-RPC read loop waits on the consumer only when it falls behind by
// adapters.TurnQueue events) and its cancellation.
type turn struct {
	*adapters.Turn
	cancelOnce sync.Once
	cancelled  chan struct{}
}

func newTurn() *turn {
	return &turn{Turn: adapters.NewTurn(), cancelled: make(chan struct{})}
}

// cancel marks the turn cancelled; first says this call did.
func (t *turn) cancel() (first bool) {
	t.cancelOnce.Do(func() { close(t.cancelled); first = true })
	return first
}

func (t *turn) isCancelled() bool {
	select {
	case <-t.cancelled:
		return true
	default:
		return false
	}
}
