// Package openai is hub's native agent: a tool-using loop over any
// OpenAI-compatible Chat Completions endpoint, hosted or local (Ollama, LM
// Studio, vLLM, llama.cpp). Tools are confined to the session's working
// directory and each call is put to the session's permission gate
// (SessionOptions.Permission); without one, to the turn's reader.
package openai

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai/tools"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/sandbox"
	"github.com/hubdev/hub/internal/transcript"
)

const (
	DefaultMaxTurnRequests = 50
	DefaultContextWindow   = 32768
	DefaultIdleTimeout     = 3 * time.Minute
)

// Options tune an Adapter beyond its profile; zero values are defaults.
type Options struct {
	HTTPClient  *http.Client
	Clock       Clock
	IdleTimeout time.Duration // ends a request when the provider sends nothing for this long
	MaxRetries  *int          // of 429/5xx/connection errors
	Logger      zerolog.Logger
	// TranscriptDir keeps each session's JSONL transcript, from which
	// SessionOptions.ResumeID continues it; "" turns both off.
	TranscriptDir string
	// MCPServers are used in every session besides the session's own
	// (hub's config); a session's server of the same name wins.
	MCPServers []adapters.MCPServer
	// Hooks ([[hooks.EVENT]]) run in the loop, but for UserPromptSubmit's,
	// which the front end runs for every agent (conversation.HooksOf).
	Hooks   *hooks.Runner
	Sandbox sandbox.Policy // confines the bash tool
	Shell   adapters.Shell // the bash tool's, instead of the host's
}

type Adapter struct {
	profile Profile
	opts    Options
}

var _ adapters.Adapter = (*Adapter)(nil)

func New(p Profile, opts Options) *Adapter {
	opts.Clock = cmp.Or[Clock](opts.Clock, realClock{})
	opts.HTTPClient = cmp.Or(opts.HTTPClient, &http.Client{Transport: http.DefaultTransport})
	opts.IdleTimeout = cmp.Or(opts.IdleTimeout, DefaultIdleTimeout)
	opts.MaxRetries = cmp.Or(opts.MaxRetries, new(defaultMaxRetries))
	return &Adapter{profile: p, opts: opts}
}

func (a *Adapter) Name() string { return a.profile.Name }

// Ready implements adapters.Checker: a hosted endpoint needs its API key.
func (a *Adapter) Ready() error {
	if !a.profile.Local && a.profile.APIKeyEnv != "" && a.profile.key() == "" {
		return fmt.Errorf("%w: set %s", adapters.ErrNotAuthenticated, a.profile.APIKeyEnv)
	}
	return nil
}

func (a *Adapter) Capabilities() adapters.Capabilities {
	transcripts := a.opts.TranscriptDir != ""
	c := adapters.Capabilities{
		Images: a.profile.Vision, EmbeddedContext: true, Permissions: true, UsesEditorFS: true, Skills: "prompt",
		MCP: true, MCPHTTP: true, DelegateTool: true, Hooks: true, SystemPrompt: true, TurnBudget: true,
		Resume: transcripts, Fork: transcripts, Transcript: transcripts, OutputSchema: a.profile.JSONSchema,
		DefaultModel: a.profile.Model, Modes: nativeModes, DefaultMode: modeDefault,
		Notes: "native OpenAI-compatible loop at " + a.profile.BaseURL + "; MCP servers' tools offered as mcp__server__tool",
	}
	if a.profile.Model != "" {
		c.Models = []adapters.Option{{ID: a.profile.Model, Name: a.profile.Model}}
	}
	return c
}

func (a *Adapter) Start(ctx context.Context, opts adapters.SessionOptions) (adapters.Session, error) {
	if len(opts.AddDirs) > 0 {
		a.opts.Logger.Warn().Strs("dirs", opts.AddDirs).Msg("the native loop's tools stay in the session's cwd; additional roots are not used")
	}
	if err := a.Ready(); err != nil {
		return nil, fmt.Errorf("%s: %w", a.profile.Name, err)
	}
	earlier, err := a.loadHistory(opts.ResumeID)
	if err != nil {
		return nil, err
	}
	cwd := opts.Cwd
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("session cwd: %w", err)
		}
	}
	env, err := tools.NewEnv(cwd, opts.Editor)
	if err != nil {
		return nil, err
	}
	env.Sandbox = sandbox.Checked(ctx, a.opts.Sandbox, nil)
	if a.opts.Shell != "" {
		env.UseShell(a.opts.Shell)
	}
	if err := validMode(opts.Mode); err != nil {
		return nil, err
	}
	hk := a.opts.Hooks // the session's own configuration's hooks win
	if opts.Hooks != nil {
		if hk, err = hooks.New(opts.Hooks); err != nil {
			return nil, fmt.Errorf("the hooks of %s: %w", cwd, err)
		}
	}
	p := a.profile
	p.Model, p.MaxTurnRequests = cmp.Or(opts.Model, p.Model), cmp.Or(max(opts.MaxTurns, 0), p.MaxTurnRequests)
	id := fmt.Sprintf("native-%d-%d", time.Now().UnixNano(), sessionSeq.Add(1))
	if opts.ResumeID != "" && !opts.Fork {
		id = opts.ResumeID
	}
	s := &Session{
		id:     id,
		cwd:    filepath.Clean(cwd),
		env:    env,
		log:    a.opts.Logger.With().Str("agent", p.Name).Logger(),
		client: &client{profile: p, http: a.opts.HTTPClient, clock: a.opts.Clock, retries: *a.opts.MaxRetries, idle: a.opts.IdleTimeout},
	}
	s.hooks, s.tools, s.mode = hk, opts.Tools, opts.Mode
	if p.JSONSchema {
		s.schema = opts.OutputSchema
	}
	s.rules = adapters.RulesOf(opts, s.interrupt, nil)
	s.mcp = startMCP(ctx, withConfigured(opts.MCPServers, a.opts.MCPServers), s.log)
	s.held = s.mcp.warnings
	if opts.Delegate != nil {
		s.delegate, s.delegateDef = opts.Delegate, []tools.Definition{delegateDef(opts.DelegateAgents)}
	}
	system := systemPrompt(cwd, opts.Instructions, a.opts.Clock.Now())
	if opts.SystemPrompt != "" {
		system = strings.TrimSpace(opts.SystemPrompt + "\n\n" + opts.Instructions)
	}
	s.history = []message{{Role: "system", Content: system}}
	s.tr = a.openTranscript(transcript.Meta{ID: id, Agent: p.Name, Cwd: s.cwd, Model: p.Model})
	if opts.Fork {
		s.add(earlier...) // the copy starts with the original's history
	} else {
		s.history = append(s.history, earlier...)
	}
	s.hook(context.WithoutCancel(ctx), hooks.Input{Event: hooks.SessionStart}, nil)
	return s, nil
}

// sessionSeq tells apart sessions started in the same instant.
var sessionSeq atomic.Int64

// withConfigured adds the configured servers the session does not name.
func withConfigured(session, configured []adapters.MCPServer) []adapters.MCPServer {
	return slices.Concat(session, slices.DeleteFunc(slices.Clone(configured), func(c adapters.MCPServer) bool {
		return slices.ContainsFunc(session, func(m adapters.MCPServer) bool { return m.Name == c.Name })
	}))
}
