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

func (t *turn) cancel() { t.cancelOnce.Do(func() { close(t.cancelled) }) }

func (t *turn) isCancelled() bool {
	select {
	case <-t.cancelled:
		return true
	default:
		return false
	}
}
