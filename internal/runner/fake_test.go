package runner

import (
	"context"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
)

// fakeScript plays one turn: it writes events to out and may wait on
// cancelled. It must not close out.
type fakeScript func(ctx context.Context, cancelled <-chan struct{}, out chan<- adapters.Event)

type fakeAdapter struct {
	name     string
	caps     adapters.Capabilities
	startErr error
	script   fakeScript
	// turns, when set, are the scripts of the session's prompts in order;
	// prompts beyond them play script.
	turns  []fakeScript
	sessID string
	// started, when set, is closed by the first Start.
	started chan struct{}
	// hold makes Start wait for its context to end, then start anyway:
	// an agent that ignores the cancel of its start.
	hold bool

	mu       sync.Mutex
	starts   int // Start's calls
	opts     adapters.SessionOptions
	prompt   []adapters.Content
	prompts  [][]adapters.Content // every prompt, in order
	closed   bool
	canceled bool
}

var _ adapters.Adapter = (*fakeAdapter)(nil)

func (a *fakeAdapter) Name() string                        { return a.name }
func (a *fakeAdapter) Capabilities() adapters.Capabilities { return a.caps }

func (a *fakeAdapter) Start(ctx context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	a.mu.Lock()
	a.starts++
	a.mu.Unlock()
	if a.startErr != nil {
		return nil, a.startErr
	}
	a.mu.Lock()
	a.opts = o
	if a.started != nil {
		close(a.started)
		a.started = nil
	}
	a.mu.Unlock()
	if a.hold {
		<-ctx.Done()
	}
	return &fakeSession{a: a, cancel: make(chan struct{})}, nil
}

type fakeSession struct {
	a      *fakeAdapter
	once   sync.Once
	cancel chan struct{}
}

func (s *fakeSession) ID() string { return s.a.sessID }

func (s *fakeSession) Prompt(ctx context.Context, p []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	s.a.mu.Lock()
	s.a.prompt = p
	s.a.prompts = append(s.a.prompts, p)
	o := s.a.opts
	script := s.a.script
	if n := len(s.a.prompts) - 1; n < len(s.a.turns) {
		script = s.a.turns[n]
	}
	s.a.mu.Unlock()
	ch := make(chan adapters.Event)
	go func() {
		defer close(ch)
		script(ctx, s.cancel, ch)
	}()
	interrupt := func() {
		s.a.mu.Lock()
		s.a.canceled = true
		s.a.mu.Unlock()
		s.once.Do(func() { close(s.cancel) })
	}
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{Permission: o.Permission, Grace: o.CancelGrace, Interrupt: interrupt})
}

func (s *fakeSession) Close() error {
	s.once.Do(func() { close(s.cancel) })
	s.a.mu.Lock()
	s.a.closed = true
	s.a.mu.Unlock()
	return nil
}

// steps builds a script from plain events; a permission event waits for
// the decision and then runs allowed or rejected.
func steps(evs ...adapters.Event) fakeScript {
	return func(_ context.Context, _ <-chan struct{}, out chan<- adapters.Event) {
		for _, e := range evs {
			out <- e
			if e.Permission != nil {
				<-e.Permission.Decision()
			}
		}
	}
}

func text(s string) adapters.Event { return adapters.Event{Type: adapters.EventText, Text: s} }
func done(r adapters.StopReason) adapters.Event {
	return adapters.Event{Type: adapters.EventDone, StopReason: r}
}
func perm(id string, kind adapters.ToolKind) adapters.Event {
	return adapters.Event{Type: adapters.EventPermission, Permission: adapters.NewPermissionRequest(
		adapters.ToolCall{ID: id, Title: "tool " + id, Kind: kind}, nil)}
}
