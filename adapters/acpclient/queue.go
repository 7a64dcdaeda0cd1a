package acpclient

import (
	"context"
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

// ask puts pr to the turn's consumer and waits for the answer; the turn's
// cancel or ctx's end answers Cancelled.
func (t *turn) ask(ctx context.Context, pr *adapters.PermissionRequest) adapters.PermissionDecision {
	t.Emit(adapters.Event{Type: adapters.EventPermission, Permission: pr})
	select {
	case d := <-pr.Decision():
		return d
	case <-t.cancelled:
		pr.Respond(adapters.PermissionDecision{Cancelled: true})
	case <-ctx.Done():
	}
	return adapters.PermissionDecision{Cancelled: true}
}

func (t *turn) isCancelled() bool {
	select {
	case <-t.cancelled:
		return true
	default:
		return false
	}
}
