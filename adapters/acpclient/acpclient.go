// Package acpclient drives any Agent Client Protocol agent: hub spawns the
// agent process, acts as its ACP client (initialize, session/new|load|resume,
// session/prompt, session/cancel) and normalizes its session/update
// notifications into adapters.Events. Permission requests become permission
// events; fs/* and terminal/* requests go to the editor as far as it
// supports them. With no editor (hub run) hub offers and serves them itself,
// each call asked like a permission request of the agent's, paths confined
// by what they resolve to and commands run in the sandbox. A method hub did
// not offer is refused.
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

// Sentinel errors.
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
	// Caps is what the adapter advertises before any session ran; models
	// and modes learned from sessions are added.
	Caps adapters.Capabilities
	// InitTimeout bounds process start + initialize + session setup
	// (default 90 s).
	InitTimeout time.Duration
	// CloseWait bounds the session/close request sent on Close to agents
	// that advertise it (default 2 s).
	CloseWait time.Duration
	// StopGrace is the wait between SIGTERM and SIGKILL on Close.
	StopGrace time.Duration
	// Fallback, when set, is used if the ACP handshake fails.
	Fallback Fallback
	// BeforeLoad, when set, runs before session/load or session/resume with
	// the session id and the agent's environment (agent-specific repairs of
	// its on-disk state); an error is logged and the load goes ahead.
	BeforeLoad func(sessionID string, env []string) error
	// WrapStart, when set, runs every Start: it may adjust the options
	// and wrap the session start returns (agent-specific repairs).
	WrapStart func(ctx context.Context, opts adapters.SessionOptions, start StartFunc) (adapters.Session, error)
	// SessionArgv, when set, is the command line of a session (Argv with
	// the project files hub has not trusted left out), with the notice its
	// first turn starts with.
	SessionArgv func(opts adapters.SessionOptions) (argv []string, notice string)
	// LearnCaps replaces Caps' prompt, resume and MCP transport flags with
	// what the agent's initialize answer says, once a session started.
	LearnCaps bool
	// LoginHint says how to log in (`run copilot login`); it ends the
	// error of a session the agent refuses for want of a login.
	LoginHint string
	// Sandbox confines the commands of terminal/create calls hub serves
	// itself ([sandbox]; zero: workspace-write).
	Sandbox sandbox.Policy
	// ClientVersion is sent as clientInfo.version.
	ClientVersion string
	Logger        zerolog.Logger
}

// Fallback opens a non-ACP session (e.g. a stream-json channel) when the
// ACP handshake fails.
type Fallback func(ctx context.Context, opts adapters.SessionOptions, acpErr error) (adapters.Session, error)

// Adapter starts ACP sessions with one agent program.
type Adapter struct {
	cfg  Config
	mu   sync.Mutex
	caps adapters.Capabilities // cfg.Caps and what sessions learned
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns an adapter for cfg.
func New(cfg Config) *Adapter {
	cfg.InitTimeout = cmp.Or(max(cfg.InitTimeout, 0), 90*time.Second)
	cfg.CloseWait = cmp.Or(max(cfg.CloseWait, 0), 2*time.Second)
	cfg.ClientVersion = cmp.Or(cfg.ClientVersion, "dev")
	caps := cfg.Caps
	caps.Instructions = true // ahead of the first prompt
	return &Adapter{cfg: cfg, caps: caps}
}

// Name implements adapters.Adapter.
func (a *Adapter) Name() string { return a.cfg.Name }

// Argv is the command line the adapter starts, and Env what it adds to
// the environment.
func (a *Adapter) Argv() []string         { return a.cfg.Argv }
func (a *Adapter) Env() map[string]string { return a.cfg.Env }

// Ready implements adapters.Checker.
func (a *Adapter) Ready() error { return adapters.FindCLI(a.cfg.Argv[0]) }

// Capabilities implements adapters.Adapter: the configured capabilities,
// with what the last initialize answer said (LearnCaps) and the models and
// modes the last session reported.
func (a *Adapter) Capabilities() adapters.Capabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.caps
	c.ModesLater = len(c.Modes) == 0
	return c
}

// learnInit keeps what an initialize answer says the agent can do.
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

// Start implements adapters.Adapter; WrapStart sees the session's
// directory already filled in.
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
