// Package acpclient drives any Agent Client Protocol agent: hub spawns it,
// acts as its ACP client and turns its updates into adapters.Events. fs/*
// and terminal/* requests go to the editor as far as it supports them; with
// no editor (hub run) hub serves them itself, each call asked like a
// permission request, paths confined and commands run in the sandbox.
package acpclient

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/sandbox"
)

var (
	ErrInitialize = errors.New("acp agent failed to initialize")
	ErrProtocol   = errors.New("acp protocol error")
)

// Config describes one ACP agent.
type Config struct {
	Name   string   // registry name
	Quirks Quirks   // the agent's departures from ACP
	Argv   []string // program and arguments
	Env    map[string]string
	// Model and Mode are applied after the session starts unless
	// SessionOptions names others.
	Model, Mode string
	// Caps is advertised before any session ran; sessions add models and modes.
	Caps        adapters.Capabilities
	InitTimeout time.Duration // process start, initialize and session setup (default 90 s)
	CloseWait   time.Duration // the session/close sent on Close (default 2 s)
	StopGrace   time.Duration // between SIGTERM and SIGKILL on Close
	Fallback    Fallback      // when set, used if the ACP handshake fails
	// BeforeLoad, when set, runs before session/load or session/resume
	// (agent-specific repairs of its on-disk state); an error is only logged.
	BeforeLoad func(sessionID string, env []string) error
	// WrapStart, when set, runs every Start: it may adjust the options
	// and wrap the session start returns (agent-specific repairs).
	WrapStart func(ctx context.Context, opts adapters.SessionOptions, start StartFunc) (adapters.Session, error)
	// SessionArgv, when set, is a session's command line (Argv without the
	// project files hub has not trusted) and the notice its first turn tells.
	SessionArgv func(opts adapters.SessionOptions) (argv []string, notice string)
	// LearnCaps takes Caps' prompt, resume and MCP transport flags from the
	// agent's initialize answer, once a session started.
	LearnCaps bool
	// LoginHint (`run copilot login`) ends the error of a session the agent
	// refuses for want of a login.
	LoginHint     string
	Sandbox       sandbox.Policy // of terminal/create calls hub serves itself (zero: workspace-write)
	ClientVersion string         // sent as clientInfo.version
	Logger        zerolog.Logger
}

// Fallback opens a non-ACP session (e.g. a stream-json channel) when the
// ACP handshake fails.
type Fallback func(ctx context.Context, opts adapters.SessionOptions, acpErr error) (adapters.Session, error)

type Adapter struct {
	cfg  Config
	mu   sync.Mutex
	caps adapters.Capabilities // cfg.Caps and what sessions learned
}

var _ adapters.Adapter = (*Adapter)(nil)

func New(cfg Config) *Adapter {
	cfg.InitTimeout = cmp.Or(max(cfg.InitTimeout, 0), 90*time.Second)
	cfg.CloseWait = cmp.Or(max(cfg.CloseWait, 0), 2*time.Second)
	cfg.ClientVersion = cmp.Or(cfg.ClientVersion, "dev")
	caps := cfg.Caps
	caps.Instructions = true // ahead of the first prompt
	return &Adapter{cfg: cfg, caps: caps}
}

func (a *Adapter) Name() string { return a.cfg.Name }

// Argv is the command line the adapter starts, Env what it adds to the environment.
func (a *Adapter) Argv() []string         { return a.cfg.Argv }
func (a *Adapter) Env() map[string]string { return a.cfg.Env }

// Ready implements adapters.Checker.
func (a *Adapter) Ready() error { return adapters.FindCLI(a.cfg.Argv[0]) }

// Capabilities implements adapters.Adapter: Config.Caps with what sessions learned.
func (a *Adapter) Capabilities() adapters.Capabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.caps
	c.ModesLater = len(c.Modes) == 0
	return c
}

func (a *Adapter) learnInit(init schema.InitializeResponse) {
	if !a.cfg.LearnCaps {
		return
	}
	ic := CapsFromInit(init)
	a.mu.Lock()
	defer a.mu.Unlock()
	c := &a.caps
	c.Images, c.Audio, c.EmbeddedContext, c.Resume, c.MCPHTTP = ic.Images, ic.Audio, ic.EmbeddedContext, ic.Resume, ic.MCPHTTP
}

// learn keeps the models and modes among a session's options.
func (a *Adapter) learn(opts []adapters.ConfigOption) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, o := range opts {
		switch {
		case len(o.Choices) == 0:
		case o.ID == adapters.OptionModel:
			a.caps.Models, a.caps.DefaultModel = o.Choices, o.Value
		case o.ID == adapters.OptionMode:
			a.caps.Modes, a.caps.DefaultMode = o.Choices, o.Value
		}
	}
}

// StartFunc starts a session; Config.WrapStart gets the adapter's own.
type StartFunc func(ctx context.Context, opts adapters.SessionOptions) (adapters.Session, error)

// Start implements adapters.Adapter; WrapStart sees opts.Cwd filled in.
func (a *Adapter) Start(ctx context.Context, opts adapters.SessionOptions) (adapters.Session, error) {
	if opts.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("%s: working directory: %w", a.cfg.Name, err)
		}
		opts.Cwd = wd
	}
	if a.cfg.WrapStart != nil {
		return a.cfg.WrapStart(ctx, opts, a.start)
	}
	return a.start(ctx, opts)
}

func (a *Adapter) start(ctx context.Context, opts adapters.SessionOptions) (adapters.Session, error) {
	if len(a.cfg.Argv) == 0 {
		return nil, fmt.Errorf("%w: agent %q has no command", adapters.ErrNotInstalled, a.cfg.Name)
	}
	s, err := a.startACP(ctx, opts)
	if err == nil {
		return s, nil
	}
	if a.cfg.Fallback != nil && errors.Is(err, ErrInitialize) {
		a.cfg.Logger.Warn().Err(err).Str("agent", a.cfg.Name).Msg("acp handshake failed; using the stream-json fallback")
		// the configured model and mode, as an ACP session applies them after it starts
		opts.Model, opts.Mode = cmp.Or(opts.Model, a.cfg.Model), cmp.Or(opts.Mode, a.cfg.Mode)
		s, err := a.cfg.Fallback(ctx, opts, err)
		if pp, ok := s.(*adapters.PerPrompt); ok && a.cfg.SessionArgv != nil {
			_, pp.Notice = a.cfg.SessionArgv(opts) // what its ACP session's first turn would have said
		}
		return s, err
	}
	return nil, err
}
