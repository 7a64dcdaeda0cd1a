package adapters

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hubdev/hub/internal/proc"
)

// PerPrompt is a session that runs one agent process per prompt (codex
// exec, the stream-json fallback of ACP agents) and resumes the agent
// session the last process reported. Cancelling a turn stops its process.
type PerPrompt struct {
	Name     string
	ResumeID string // the agent session the first prompt resumes ("": a new one)
	// Command is the process of one prompt resuming resumeID, built with
	// the session locked; done (may be nil) runs once that process is
	// gone, or at once when it does not start.
	Command func(prompt []Content, resumeID string) (spec proc.Spec, done func(), err error)
	// NewDecoder is the decoder of one prompt's output.
	NewDecoder func() LineDecoder
	// NoEnd ends a turn whose output had no EventDone, after its process
	// exited with waitErr.
	NoEnd func(p *proc.Process, waitErr error) []Event
	// Rules are the turns' rules; the session sets their Interrupt.
	Rules TurnRules
	// Stop stops a cancelled turn's process (nil: proc.Process.Stop).
	Stop func(p *proc.Process)

	id     atomic.Value // string: the agent session the next prompt resumes
	turn   Running      // started under mu, with p
	mu     sync.Mutex
	p      *proc.Process
	closed bool
}

// ID implements Session: the agent session id last reported.
func (s *PerPrompt) ID() string {
	if id, ok := s.id.Load().(string); ok {
		return id
	}
	return s.ResumeID
}

// Prompt implements Session.
func (s *PerPrompt) Prompt(ctx context.Context, prompt []Content, emit func(Event)) (StopReason, error) {
	t, err := s.start(ctx, prompt)
	if err != nil {
		return "", err
	}
	r := s.Rules
	r.Interrupt = s.interrupt
	return t.Run(ctx, emit, r)
}

func (s *PerPrompt) start(ctx context.Context, prompt []Content) (*Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("%s: %w", s.Name, ErrClosed)
	}
	t, err := s.turn.Start()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	p, done, err := s.spawn(ctx, prompt)
	if err != nil {
		s.turn.End(t)
		return nil, err
	}
	s.p = p
	go s.run(p, t, done)
	return t, nil
}

// spawn starts the prompt's process; done runs once it is gone.
func (s *PerPrompt) spawn(ctx context.Context, prompt []Content) (p *proc.Process, done func(), err error) {
	spec, done, err := s.Command(prompt, s.ID())
	if err != nil {
		return nil, nil, err
	}
	if done == nil {
		done = func() {}
	}
	if p, err = proc.Start(context.WithoutCancel(ctx), spec); err != nil {
		done()
		return nil, nil, StartError(s.Name, err)
	}
	_ = p.Stdin.Close() // the prompt is in argv; some agents read stdin to EOF
	return p, done, nil
}

// run reads the prompt's process into t: each event to t and each agent
// session id as the one the next prompt resumes, except the stream's
// EventDone, which ends t once the process is gone.
func (s *PerPrompt) run(p *proc.Process, t *Turn, done func()) {
	dec := s.NewDecoder()
	var end []Event
	deliver := func(evs []Event) {
		for _, ev := range evs {
			switch {
			case ev.Type == EventDone:
				end = []Event{ev}
				continue
			case ev.Type == EventSessionInfo && ev.Session.AgentSessionID != "":
				s.id.Store(ev.Session.AgentSessionID)
			}
			t.Emit(ev)
		}
	}
	_ = ReadLines(p.Stdout, func(line []byte) { deliver(dec.Decode(line)) })
	if f, ok := dec.(Flusher); ok {
		deliver(f.Flush())
	}
	waitErr := p.Wait()
	done()
	s.mu.Lock()
	s.p = nil // no cancel after this one
	cancelled := t.IsCancelled()
	s.mu.Unlock()
	if end == nil && !cancelled {
		end = s.NoEnd(p, waitErr)
	}
	s.turn.Exited(cancelled, end...)
}

// Note passes ev to the running turn as the agent's own (what it says
// outside its output, such as gemini's retries); between turns it is
// dropped.
func (s *PerPrompt) Note(ev Event) {
	if t := s.turn.Current(); t != nil {
		t.Emit(ev)
	}
}

// interrupt cancels the running turn and stops its process.
func (s *PerPrompt) interrupt() {
	if p := s.stopping(false); p != nil && s.Stop != nil {
		go s.Stop(p)
	} else if p != nil {
		go p.Stop()
	}
}

// stopping marks the running turn cancelled and, with closing, the
// session closed; it returns the turn's process, nil when none runs.
func (s *PerPrompt) stopping(closing bool) *proc.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = s.closed || closing
	if s.p != nil {
		s.turn.Current().Cancel()
	}
	return s.p
}

// Close implements Session: it stops the running process and waits for it.
func (s *PerPrompt) Close() error {
	if p := s.stopping(true); p != nil {
		_ = p.Stop()
	}
	return nil
}
