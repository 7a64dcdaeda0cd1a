package acp

import (
	"context"

	"github.com/hubdev/hub/adapters"
)

// stuck is an adapter whose turns ignore Cancel, to test CancelGrace.
type stuck struct{}

func (stuck) Name() string                        { return "stuck" }
func (stuck) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (stuck) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	return &stuckSession{stop: make(chan struct{})}, nil
}

type stuckSession struct{ stop chan struct{} }

func (s *stuckSession) ID() string { return "stuck" }
func (s *stuckSession) Prompt(context.Context, []adapters.Content) (<-chan adapters.Event, error) {
	ch := make(chan adapters.Event)
	go func() {
		// The first event tells a test the turn runs.
		ch <- adapters.Event{Type: adapters.EventText, Text: "stuck"}
		<-s.stop
		close(ch)
	}()
	return ch, nil
}
func (s *stuckSession) Close() error {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	return nil
}
