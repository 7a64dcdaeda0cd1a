package adapters

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hubdev/hub/internal/proc"
)

// PerPrompt is a session that runs one agent process per prompt (codex exec, the
// stream-json fallback of ACP agents) and resumes the agent session the last process
// reported. Cancelling a turn stops its process.
type PerPrompt struct {
	Name     string
	ResumeID string // the agent session the first prompt resumes ("": a new one)
	// Command is the process of one prompt resuming resumeID, built with the session
	// locked; done (may be nil) runs once that process is gone, or at once when it does
	// not start.
	Command func(prompt []Content, resumeID string) (spec proc.Spec, done func(), err error)
	// Started (may be nil) runs, with the session locked, once a prompt's process
	// started: what Command gave it reached the agent.
	Started    func()
	NewDecoder func() LineDecoder // of one prompt's output
	Rules      TurnRules          // the session sets their Interrupt
	// Notice (may be "") starts the first turn, as a warning: the project files the agent
	// runs without.
	Notice string

	id       atomic.Value   // string: the agent session the next prompt resumes
	turn     Running        // started under mu
	mu       sync.Mutex     // closed, and a turn starting
	closed   bool           // no turn starts
	watchers sync.WaitGroup // one per process, until it is gone
}

// ID is the agent session id last reported.
func (s *PerPrompt) ID() string {
	if id, ok := s.id.Load().(string); ok {
		return id
	}
	return s.ResumeID
}

func (s *PerPrompt) Prompt(ctx context.Context, prompt []Content, emit func(Event)) (StopReason, error) {
	t, err := s.start(ctx, prompt)
	if err != nil {
		return "", err
	}
	r := s.Rules
	r.Interrupt = func() { t.Cancel() }
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
	if s.Notice != "" {
		t.Emit(Event{Type: EventError, Error: &ErrorInfo{Message: s.Notice, Code: CodeWarning}})
		s.Notice = ""
	}
	s.watchers.Go(func() { // stops p (its Spec's StopSignal, then its Grace) once t is cancelled
		select {
		case <-p.Done():
		case <-t.Cancelled():
			_ = p.Stop()
		}
	})
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
		return nil, nil, StartError(err)
	}
	_ = p.Stdin.Close() // the prompt is in argv; some agents read stdin to EOF
	if s.Started != nil {
		s.Started()
	}
	return p, done, nil
}

// run reads the prompt's process into t, keeping each agent session id for the next
// prompt, and holds the stream's EventDone back until the process is gone.
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
	crash := CrashEnd(p, s.Name) // stops a process that closed its output but runs on
	waitErr := p.Wait()
	done()
	cancelled := t.IsCancelled()
	switch { // an output with no EventDone: its process's exit, or one that ended well but said nothing
	case end == nil && !cancelled && waitErr != nil:
		end = crash
	case end == nil && !cancelled:
		end = Failure(&ErrorInfo{Message: s.Name + " ended without a result", Code: CodeCrash, Fatal: true, Detail: p.StderrTail(10)})
	}
	s.turn.Exited(cancelled, end...)
}

// Note passes ev to the running turn as the agent's own (what it says outside its
// output, such as gemini's retries); between turns it is dropped.
func (s *PerPrompt) Note(ev Event) { s.turn.Emit(ev) }

// Close cancels the running turn and waits for its process to be gone.
func (s *PerPrompt) Close() error {
	s.mu.Lock()
	s.closed = true
	if t := s.turn.Current(); t != nil {
		t.Cancel()
	}
	s.mu.Unlock()
	s.watchers.Wait()
	return nil
}
