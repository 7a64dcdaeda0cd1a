package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

var _ adapters.Session = (*execSession)(nil)

// execSession runs one `codex exec --json` process per turn and continues
// the thread with `codex exec resume <thread_id>`. Codex exec never asks
// for approval: the sandbox mode decides.
type execSession struct {
	a    *Adapter
	opts adapters.SessionOptions
	dec  *CodexExecDecoder
	raw  *adapters.UnknownRecords

	mu sync.Mutex
	// skills goes in front of the first prompt: codex exec has no way to
	// add a skills folder.
	skills string
	// schema is the temp file of SessionOptions.OutputSchema ("": none).
	schema    string
	thread    string
	p         *proc.Process
	cancelled bool
	closed    bool
}

func (a *Adapter) startExec(opts adapters.SessionOptions) (*execSession, error) {
	if opts.Fork { // codex exec resume would continue the original thread
		return nil, fmt.Errorf("codex exec cannot fork a thread: %w", adapters.ErrUnsupported)
	}
	text, err := skillPrompt(opts.SkillDirs)
	if err != nil {
		return nil, fmt.Errorf("codex skills: %w", err)
	}
	schema, err := schemaFile(opts.OutputSchema)
	if err != nil {
		return nil, err
	}
	return &execSession{a: a, opts: opts, dec: NewCodexExecDecoder(), thread: opts.ResumeID,
		raw: a.unknownRecords(), skills: text, schema: schema}, nil
}

// schemaFile writes the output schema where `codex exec --output-schema`
// reads it; "" when there is none. Close removes it.
func schemaFile(schema json.RawMessage) (string, error) {
	if len(schema) == 0 {
		return "", nil
	}
	f, err := os.CreateTemp("", "hub-codex-schema-*.json")
	if err != nil {
		return "", fmt.Errorf("codex exec: temp file for the output schema: %w", err)
	}
	_, err = f.Write(schema)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("codex exec: write the output schema: %w", err)
	}
	return f.Name(), nil
}

func (s *execSession) ID() string { s.mu.Lock(); defer s.mu.Unlock(); return s.thread }

func (s *execSession) args(prompt string, images []string) []string {
	args := append(s.a.cfg.ArgvOr("codex")[1:], "exec")
	if s.thread != "" {
		args = append(args, "resume", s.thread)
	}
	sandbox, _ := s.a.policy(s.opts) // exec never asks
	args = append(args, "--json", "--skip-git-repo-check", "-c", "sandbox_mode="+tomlString(sandbox))
	args = adapters.AppendFlags(args, "-m", s.opts.Model)
	if s.opts.Instructions != "" {
		args = append(args, "-c", "developer_instructions="+tomlString(s.opts.Instructions))
	}
	args = adapters.AppendFlags(append(args, configOverrides(s.opts)...), "--output-schema", s.schema)
	for _, img := range images {
		args = append(args, "--image", img)
	}
	return append(args, "--", prompt)
}

// Prompt implements adapters.Session.
func (s *execSession) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	out, err := s.start(ctx, prompt)
	if err != nil {
		return "", err
	}
	return out.Run(ctx, emit, adapters.RulesOf(s.opts, s.interrupt, s.raw))
}

func (s *execSession) start(ctx context.Context, prompt []adapters.Content) (*adapters.Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, adapters.ErrClosed
	}
	if s.p != nil {
		return nil, adapters.ErrBusy
	}
	images, cleanup, err := imageFiles(prompt)
	if err != nil {
		return nil, err
	}
	argv := s.a.cfg.ArgvOr("codex")
	p, err := proc.Start(context.WithoutCancel(ctx), proc.Spec{Path: argv[0], Args: s.args(adapters.PromptText(withSkills(prompt, s.skills)), images),
		Dir: s.opts.Cwd, Env: s.a.env(s.opts), Grace: 2 * time.Second})
	if err != nil {
		cleanup()
		return nil, adapters.StartError("codex", err)
	}
	_ = p.Stdin.Close() // codex exec reads stdin to EOF when it is a pipe
	s.p, s.cancelled, s.skills = p, false, ""
	out := adapters.NewTurn()
	go s.run(p, out, cleanup)
	return out, nil
}

// run reads the turn's process; the thread id it reports is the one the
// next turn resumes.
func (s *execSession) run(p *proc.Process, out *adapters.Turn, cleanup func()) {
	adapters.ProcessTurn(p, out, s.dec, func(id string) {
		s.mu.Lock()
		s.thread = id
		s.mu.Unlock()
	}, func() bool {
		cleanup()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.p = nil
		return s.cancelled
	}, func(error) []adapters.Event { return crashEnd("codex exec", p) })
}

// interrupt SIGINT to the group, then Stop.
func (s *execSession) interrupt() {
	if p := s.stopping(false); p != nil {
		_ = p.Signal(syscall.SIGINT)
		go func() { _ = p.StopWithin(2 * time.Second) }()
	}
}

// stopping marks the running turn cancelled (the next turn starts
// uncancelled) and, with closing, the session closed; it returns the
// turn's process, nil when none runs.
func (s *execSession) stopping(closing bool) *proc.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelled, s.closed = true, s.closed || closing
	return s.p
}

// Close implements adapters.Session.
func (s *execSession) Close() error {
	if p := s.stopping(true); p != nil {
		_ = p.Stop()
	}
	if s.schema != "" {
		_ = os.Remove(s.schema)
	}
	return nil
}
