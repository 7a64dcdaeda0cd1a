package acpclient

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

// StreamJSON describes a one-process-per-prompt fallback channel such as
// `gemini -p ... -o stream-json`.
type StreamJSON struct {
	Name string
	// Argv builds the command line for one prompt; resumeID is the agent
	// session id from an earlier turn ("" on the first).
	Argv       func(prompt, resumeID string, opts adapters.SessionOptions) []string
	NewDecoder func() adapters.LineDecoder
	// TestedVersions and Version name the agent's version in the warning
	// for a record hub does not know; Version may run the CLI (it is asked
	// only once such a record shows up). Quiet sources warn at debug.
	TestedVersions string
	Version        func() string
	Quiet          func(source string) bool
	Env            map[string]string
	Grace          time.Duration
	Logger         zerolog.Logger
}

// WithoutFlags is a copy of argv (program and arguments) without flags,
// for the fallback channel of an agent that takes them only in ACP mode.
func WithoutFlags(argv []string, flags ...string) []string {
	return append([]string{argv[0]}, slices.DeleteFunc(slices.Clone(argv[1:]), func(a string) bool { return slices.Contains(flags, a) })...)
}

// Fallback returns a Fallback that opens stream-json sessions.
func (c StreamJSON) Fallback() Fallback {
	return func(_ context.Context, opts adapters.SessionOptions, _ error) (adapters.Session, error) {
		raw := adapters.NewUnknownRecords(c.Logger, c.Name, c.TestedVersions,
			adapters.UnknownOptions{Version: c.Version, SlowVersion: true, Quiet: c.Quiet})
		return &streamSession{cfg: c, opts: opts, id: opts.ResumeID, raw: raw}, nil
	}
}

// streamSession runs one agent process per prompt and resumes the agent's
// session by id between prompts.
type streamSession struct {
	cfg  StreamJSON
	opts adapters.SessionOptions
	raw  *adapters.UnknownRecords

	mu     sync.Mutex
	id     string
	cur    *proc.Process
	cancel *adapters.Turn
	closed bool
}

var _ adapters.Session = (*streamSession)(nil)

func (s *streamSession) ID() string { s.mu.Lock(); defer s.mu.Unlock(); return s.id }

func (s *streamSession) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	t, err := s.start(prompt)
	if err != nil {
		return "", err
	}
	return t.Run(ctx, emit, adapters.RulesOf(s.opts, s.interrupt, s.raw))
}

func (s *streamSession) start(prompt []adapters.Content) (*adapters.Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("%s: %w", s.cfg.Name, adapters.ErrClosed)
	}
	if s.cur != nil {
		return nil, fmt.Errorf("%s: %w", s.cfg.Name, adapters.ErrBusy)
	}
	text := adapters.PromptText(prompt)
	if s.opts.Instructions != "" && s.id == "" {
		text = s.opts.Instructions + "\n\n" + text
	}
	argv := s.cfg.Argv(text, s.id, s.opts)
	p, err := proc.Start(context.Background(), proc.Spec{Path: argv[0], Args: argv[1:], Dir: s.opts.Cwd, Env: adapters.Environ(nil, s.cfg.Env, s.opts.Env),
		StopSignal: syscall.SIGINT, Grace: s.cfg.Grace})
	if err != nil {
		return nil, adapters.StartError(s.cfg.Name, err)
	}
	_ = p.Stdin.Close()
	t := adapters.NewTurn()
	s.cur, s.cancel = p, t
	go s.run(p, t)
	return t, nil
}

// run reads the prompt's process; what it says of the agent session id
// is the id the next prompt resumes.
func (s *streamSession) run(p *proc.Process, t *adapters.Turn) {
	adapters.ProcessTurn(p, t, s.cfg.NewDecoder(), func(id string) {
		s.mu.Lock()
		s.id = id
		s.mu.Unlock()
	}, func() bool {
		s.mu.Lock()
		s.cur = nil
		s.mu.Unlock()
		return t.IsCancelled()
	}, func(exitErr error) []adapters.Event {
		msg := fmt.Sprintf("%s exited without a result (exit code %d)", s.cfg.Name, p.ExitCode())
		if exitErr == nil {
			msg = s.cfg.Name + " ended without a result"
		}
		return adapters.Failure(&adapters.ErrorInfo{Message: msg, Code: adapters.CodeCrash, Fatal: true, Detail: p.StderrTail(10)})
	})
}

// Note passes ev to the running turn as the agent's own (what it says
// outside its stream, such as gemini's retries); between turns it is dropped.
func (s *streamSession) Note(ev adapters.Event) {
	s.mu.Lock()
	p, t := s.cur, s.cancel
	s.mu.Unlock()
	if p != nil {
		t.Emit(ev)
	}
}

func (s *streamSession) interrupt() {
	s.mu.Lock()
	p, t := s.cur, s.cancel
	s.mu.Unlock()
	if p != nil {
		t.Cancel()
		go func() { _ = p.Stop() }()
	}
}

func (s *streamSession) Close() error {
	s.mu.Lock()
	s.closed = true
	p := s.cur
	s.mu.Unlock()
	s.interrupt()
	if p != nil {
		<-p.Done()
	}
	return nil
}
