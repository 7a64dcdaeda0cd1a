package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hubdev/hub/acp"
	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/runner"
	"github.com/hubdev/hub/personas"
	"github.com/hubdev/hub/skills"
)

func init() { commands["acp"] = described("acp", runAcp) }

func runAcp(ctx context.Context, e *env, args []string) int {
	opts := acp.Options{
		Registry:        e.registry,
		DefaultAgent:    e.cfg.DefaultAgent,
		Logger:          e.log,
		AgentInfo:       schema.Implementation{Name: "hub", Title: "hub", Version: currentBuild().Version},
		Skills:          skills.Source{TrustProject: e.trustProject},
		Agents:          e.cfg.ACP.Agents,
		Fallback:        e.cfg.Fallbacks(),
		ProviderTimeout: e.cfg.Fallback.ProviderTimeout.Duration,
		AuthMethods:     func() []schema.AuthMethod { return authMethods(e) },
		MaxLine:         e.cfg.ACP.MaxMessageMB << 20,
		MaxPrompt:       e.cfg.ACP.MaxPromptMB << 20,
		Grants:          permission.OpenGrants(permission.GrantsFile(config.StateDir()), nil),
		Candidate:       runner.Candidate,
		TranscriptDir:   e.cfg.AuditDir(),
	}
	fs := e.flagSet("acp")
	agent := fs.String("agent", "", "agent for new sessions (default: config default_agent, else claude)")
	fs.StringVar(&opts.StateDir, "state-dir", "", "session index directory (default: "+config.StateDir()+")")
	fs.StringVar(&opts.Model, "model", "", "model of new sessions (default: the agent's own)")
	fs.StringVar(&opts.Mode, "mode", "", "mode of new sessions, e.g. read-only or plan (default: the agent's own)")
	if code, ok := e.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 1 && fs.Arg(0) == "login" || fs.NArg() == 2 && (fs.Arg(0) == "login" || fs.Arg(0) == "logout") {
		// An editor's terminal auth runs the server's command with the
		// method's args appended: the agent's own login, in its terminal.
		return runLogin(ctx, e, fs.Args()[1:], fs.Arg(0) == "logout")
	}
	if fs.NArg() > 0 {
		return e.fail(exitUsage, "hub acp: unexpected argument %q\n", fs.Arg(0))
	}
	if self, err := os.Executable(); err == nil {
		opts.Self = self
		opts.Delegation = e.cfg.ACP.Delegation != nil && *e.cfg.ACP.Delegation
		opts.DelegationDepth = e.cfg.ACP.DelegationDepth
	}
	opts.Settings = func(cwd string) (acp.Settings, error) { return sessionSettings(e, cwd) }
	if w := e.cfg.ACP.WarmAgents; w != nil {
		opts.WarmAgents = cmp.Or(*w, -1) // 0 in the config turns warm starts off
	}
	if t := e.cfg.ACP.IdleTimeout; t.Set {
		opts.IdleTimeout = cmp.Or(t.Duration, -1) // "0" means never
	}
	defer proc.StopAll(time.Second)
	if *agent != "" {
		if _, err := e.registry.Get(*agent); err != nil {
			return e.fail(exitUsage, "hub acp: %v\n", err)
		}
		opts.DefaultAgent = *agent
	} else if opts.DefaultAgent != "" {
		if use, known := acp.DefaultAgent(e.registry, opts.DefaultAgent); !known {
			fmt.Fprintf(e.stderr, named("hub acp: default_agent %q in the config is not an agent hub knows; new sessions use %q instead (see 'hub agents')\n"),
				opts.DefaultAgent, use)
		}
	}
	if err := checkMode(e, opts); err != nil {
		return e.fail(exitUsage, "hub acp: %v\n", err)
	}
	opts.StateDir = cmp.Or(opts.StateDir, config.StateDir())
	if err := acp.Serve(ctx, e.stdin, e.stdout, opts); err != nil {
		e.log.Error().Err(err).Msg("acp server stopped")
		return exitError
	}
	return exitOK
}

// serveBroken serves ACP with a config hub cannot use: initialize works,
// and every session request answers the config error.
func serveBroken(ctx context.Context, stdin io.Reader, stdout io.Writer, cfgErr error) int {
	opts := acp.Options{AgentInfo: schema.Implementation{Name: "hub", Title: "hub", Version: currentBuild().Version}, Broken: cfgErr}
	if err := acp.Serve(ctx, stdin, stdout, opts); err != nil {
		return exitError
	}
	return exitUsage
}

// checkMode refuses a --mode the agent of new sessions does not have.
func checkMode(e *env, opts acp.Options) error {
	if opts.Mode == "" {
		return nil
	}
	name, _ := acp.DefaultAgent(e.registry, opts.DefaultAgent)
	a, err := e.registry.Get(name)
	if err != nil {
		return err
	}
	return personas.HasMode(a.Capabilities(), name, opts.Mode)
}

// sessionSettings loads the config that applies in an editor session's
// cwd, which may be another repository than hub's: the user's file and
// that cwd's project files, trusted as at launch.
func sessionSettings(e *env, cwd string) (acp.Settings, error) {
	cfg, err := config.LoadTrusting(cwd, e.configPath, e.trustProject)
	if err != nil {
		return acp.Settings{}, err
	}
	hk, err := hooks.New(cfg.Hooks)
	if err != nil {
		return acp.Settings{}, fmt.Errorf("%s: %w", cwd, err)
	}
	// cfg.Hooks is never nil: none here means none, not the launch directory's.
	return acp.Settings{Permissions: cfg.Permissions, Hooks: hk, HookConfig: cfg.Hooks, Notice: cfg.UntrustedNotice(),
		Registry: all.ForCwd(e.registry, cfg, e.log)}, nil
}
