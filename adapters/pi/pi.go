// Package pi drives the pi coding agent (@mariozechner/pi-coding-agent)
// through one `pi --mode rpc` process per session: a turn is a `prompt`
// command on stdin, Cancel sends `abort`. pi has no permission hook: its
// tools run without asking (restrict them with the `tools` option).
package pi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc"
)

const (
	Name           = "pi" // the registry key
	TestedVersions = "0.73.1"
)

// ErrStart means pi did not come up in RPC mode.
var ErrStart = errors.New("pi did not start")

var _ adapters.Adapter = (*Adapter)(nil)

// Options configure the adapter; zero values pick defaults.
type Options struct {
	Argv      []string // program and leading args (default ["pi"])
	Env       map[string]string
	Log       zerolog.Logger
	StopGrace time.Duration // default proc.DefaultGrace
	// Provider, Model, Tools (comma separated), Thinking and SessionDir are
	// pi's --provider, --model, --tools, --thinking and --session-dir.
	Provider, Model, Tools, Thinking, SessionDir string
	// TrustProject lets pi run the project's files hub has not trusted.
	TrustProject bool
}

type Adapter struct {
	opts    Options
	unknown *adapters.UnknownRecords
}

// New builds the adapter from the [agents.pi] config entry.
func New(ac config.AgentConfig, log zerolog.Logger) *Adapter {
	return NewWithOptions(Options{Argv: ac.Argv(), Env: ac.Env, Model: ac.Model, Log: log, Provider: ac.Option("provider"),
		Tools: ac.Option("tools"), Thinking: ac.Option("thinking"), SessionDir: ac.Option("session_dir")})
}

func NewWithOptions(o Options) *Adapter {
	if len(o.Argv) == 0 {
		o.Argv = []string{"pi"}
	}
	return &Adapter{opts: o, unknown: newUnknownRecords(o)}
}

const (
	startTimeout = 60 * time.Second // pi's first get_state answer
	// versionTimeout bounds `pi --version`, asked only once a record hub
	// does not know shows up (pi's RPC channel does not report its version).
	versionTimeout = 5 * time.Second
)

// newUnknownRecords warns once per adapter about each pi record type hub
// does not understand.
func newUnknownRecords(o Options) *adapters.UnknownRecords {
	return adapters.NewUnknownRecords(o.Log, Name, TestedVersions, adapters.UnknownOptions{
		Version: adapters.CLIVersion(o.Argv, o.Env, versionTimeout), SlowVersion: true})
}

func (a *Adapter) Name() string { return Name }

// Ready implements adapters.Checker.
func (a *Adapter) Ready() error { return adapters.FindCLI(a.opts.Argv[0]) }

func (a *Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Images: true, Resume: true, DefaultModel: a.opts.Model, Skills: "prompt", Instructions: true,
		TestedVersions: TestedVersions,
		Notes: "pi has no permission hook: its tools run without asking, so no permission requests reach " +
			"the editor (limit tools with the pi agent's tools option). No MCP support.",
	}
}

// Args returns pi's command line (without the program) for opts.
func (a *Adapter) Args(so adapters.SessionOptions) []string {
	args := append(slices.Clone(a.opts.Argv[1:]), "--mode", "rpc")
	if so.ResumeID == "" { // a resumed session restores its own provider and model
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
