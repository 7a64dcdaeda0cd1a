package adapters

import "context"

// WatchTurn passes a turn's events on and calls cancel once if ctx ends
// before the turn does: how an adapter whose agent has its own interrupt
// honours the seam's cancellation through ctx. The returned channel closes
// after events does.
func WatchTurn(ctx context.Context, events <-chan Event, cancel func()) <-chan Event {
	out := make(chan Event)
	go func() {
		defer close(out)
		done := ctx.Done()
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					return
				}
				out <- ev
			case <-done:
				done = nil
				cancel()
			}
		}
	}()
	return out
}
