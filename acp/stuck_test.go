package acp

import (
	"context"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
)

// stuck is an adapter whose turns ignore Cancel, to test CancelGrace.
type stuck struct{}

func (stuck) Name() string                        { return "stuck" }
func (stuck) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (stuck) Start(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	return &stuckSession{stop: make(chan struct{}), grace: o.CancelGrace}, nil
}

type stuckSession struct {
	stop  chan struct{}
	grace time.Duration
	once  sync.Once
}

func (s *stuckSession) ID() string { return "stuck" }
func (s *stuckSession) Prompt(ctx context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	ch := make(chan adapters.Event)
	go func() {
		// The first event tells a test the turn runs.
		ch <- adapters.Event{Type: adapters.EventText, Text: "stuck"}
		<-s.stop
		close(ch)
	}()
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{Grace: s.grace})
}

// Close may run twice at once: RunTurn and hub acp both close a stuck session.
func (s *stuckSession) Close() error {
	s.once.Do(func() { close(s.stop) })
	return nil
}
