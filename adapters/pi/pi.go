// Package pi drives the pi coding agent (@mariozechner/pi-coding-agent,
// tested with 0.73.1) through one long-lived `pi --mode rpc` process per
// session: each user turn is a `prompt` command on stdin, Cancel sends
// `abort`, and pi's JSONL events are normalized by PiDecoder.
// After start the adapter asks `get_state` for pi's session id and file,
// reports them as session_info, and resumes later with `--session <id>`.
//
// pi has no permission hook: its tools (read, bash, edit, write, ...) run
// without asking, so this adapter never emits permission events and
// reports Capabilities.Permissions = false. Restrict pi with the `tools`
// option (e.g. "read,grep,find,ls") when that matters.
package pi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc"
)

// Name is the registry key.
const Name = "pi"

// TestedVersions is the pi release this adapter was verified against.
const TestedVersions = "0.73.1"

// ErrStart means pi did not come up in RPC mode.
var ErrStart = errors.New("pi did not start")

var _ adapters.Adapter = (*Adapter)(nil)

// Options configure the adapter; zero values pick defaults.
type Options struct {
	// Argv is the program and leading args (default ["pi"]).
	Argv []string
	Env  map[string]string
	// Provider and Model select pi's --provider / --model.
	Provider string
	Model    string
	// Tools is pi's --tools allowlist (comma separated), Thinking its
	// --thinking level, SessionDir its --session-dir.
	Tools, Thinking, SessionDir string
	Log                         zerolog.Logger
	// StopGrace is the process stop grace (default proc.DefaultGrace).
	StopGrace time.Duration
	// TrustProject lets pi run the project's files although hub has not
	// trusted them (--trust-project).
	TrustProject bool
}

// Adapter starts pi sessions.
type Adapter struct {
	opts    Options
	unknown *adapters.UnknownRecords
}

// New builds the adapter from the [agents.pi] config entry.
func New(ac config.AgentConfig, log zerolog.Logger) *Adapter {
	return NewWithOptions(Options{Argv: ac.Argv(), Env: ac.Env, Model: ac.Model, Log: log, Provider: ac.Option("provider"),
		Tools: ac.Option("tools"), Thinking: ac.Option("thinking"), SessionDir: ac.Option("session_dir")})
}

// NewWithOptions builds the adapter from explicit options.
func NewWithOptions(o Options) *Adapter {
	if len(o.Argv) == 0 {
		o.Argv = []string{"pi"}
	}
	return &Adapter{opts: o, unknown: newUnknownRecords(o)}
}

// startTimeout bounds the wait for pi's first get_state answer.
const startTimeout = 60 * time.Second

// versionTimeout bounds `pi --version`, asked only once a record hub does
// not know shows up (pi's RPC channel does not report its version).
const versionTimeout = 5 * time.Second

// newUnknownRecords warns once per adapter about each pi record type hub
// does not understand.
func newUnknownRecords(o Options) *adapters.UnknownRecords {
	return adapters.NewUnknownRecords(o.Log, Name, TestedVersions, adapters.UnknownOptions{
		Version: adapters.CLIVersion(o.Argv, o.Env, versionTimeout), SlowVersion: true})
}

// Name implements adapters.Adapter.
func (a *Adapter) Name() string { return Name }

// Ready implements adapters.Checker.
func (a *Adapter) Ready() error { return adapters.FindCLI(a.opts.Argv[0]) }

// Capabilities implements adapters.Adapter.
func (a *Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Images: true, Resume: true, DefaultModel: a.opts.Model, Skills: "prompt", Instructions: true,
		TestedVersions: TestedVersions,
		Notes: "pi has no permission hook: its tools run without asking, so no permission requests reach " +
			"the editor (limit tools with the pi agent's tools option). No MCP support.",
	}
}

// Args returns pi's command line (without the program) for opts.
func (a *Adapter) Args(so adapters.SessionOptions) []string {
	args := append([]string{}, a.opts.Argv[1:]...)
	args = append(args, "--mode", "rpc")
	// A resumed session restores its own provider and model.
	if so.ResumeID == "" {
		args = adapters.AppendFlags(args, "--provider", a.opts.Provider, "--model", cmp.Or(so.Model, a.opts.Model))
	} else {
		args = append(args, "--session", so.ResumeID)
	}
	args = adapters.AppendFlags(args, "--session-dir", a.opts.SessionDir, "--tools", a.opts.Tools,
		"--thinking", cmp.Or(so.Options[adapters.OptionEffort], a.opts.Thinking))
	if strings.TrimSpace(so.Instructions) != "" {
		args = append(args, "--append-system-prompt", so.Instructions)
	}
	return args
}

// Start implements adapters.Adapter: it spawns pi and waits for its state.
func (a *Adapter) Start(ctx context.Context, so adapters.SessionOptions) (adapters.Session, error) {
	if len(so.AddDirs) > 0 {
		a.opts.Log.Warn().Strs("dirs", so.AddDirs).Msg("pi takes no additional workspace roots; it works in the session's cwd")
	}
	trust, notice, err := a.trustArgs(so)
	if err != nil {
		return nil, adapters.Mark(ErrStart, err)
	}
	p, err := proc.Start(context.Background(), proc.Spec{Path: a.opts.Argv[0], Args: append(a.Args(so), trust...), Dir: so.Cwd,
		Env: adapters.Environ(nil, a.opts.Env, so.Env), Grace: a.opts.StopGrace})
	if err != nil {
		if errors.Is(err, proc.ErrNotFound) {
			return nil, fmt.Errorf("%w (npm install -g @mariozechner/pi-coding-agent)", adapters.StartError(err))
		}
		return nil, adapters.StartError(err)
	}
	s := newSession(a.opts.Log, so.Cwd, p, a.unknown)
	s.notice = notice
	s.rules = adapters.RulesOf(so, s.interrupt, nil)
	startCtx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := s.loadState(startCtx); err != nil {
		_ = s.Close()
		return nil, adapters.Mark(ErrStart, err)
	}
	return s, nil
}
