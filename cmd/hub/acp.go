package main

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/hubdev/hub/acp"
	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/skills"
)

const acpHelp = `Usage: hub acp [--agent NAME] [--state-dir DIR]

Serve the Agent Client Protocol (v1) on stdin/stdout, for editors such as Zed
and JetBrains IDEs. stdout carries protocol messages only; logs go to stderr
(or --log-file). Each editor session drives one agent; the editor can switch
it with the "agent" session option, and pick "model"/"mode" when the agent
offers them. Sessions are kept in DIR so the editor can list, load and
resume them.

Zed settings.json:
  "agent_servers": { "hub": { "type": "custom", "command": "hub", "args": ["acp"] } }
`

func init() { commands["acp"] = command{run: runAcp, help: acpHelp} }

func runAcp(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("acp", acpHelp, e.stderr)
	agent := fs.String("agent", "", "agent for new sessions (default: config default_agent, else claude)")
	stateDir := fs.String("state-dir", "", "session index directory (default: "+config.StateDir()+")")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "hub acp: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	opts := acp.Options{
		Registry:     e.registry,
		DefaultAgent: e.cfg.DefaultAgent,
		Logger:       e.log,
		StateDir:     *stateDir,
		AgentInfo:    schema.Implementation{Name: "hub", Title: "hub", Version: currentBuild().Version},
		Skills:       skills.Source{},
	}
	defer proc.StopAll(time.Second)
	if *agent != "" {
		if _, err := e.registry.Get(*agent); err != nil {
			fmt.Fprintf(e.stderr, "hub acp: %v\n", err)
			return exitUsage
		}
		opts.DefaultAgent = *agent
	} else if opts.DefaultAgent != "" {
		if use, known := acp.DefaultAgent(e.registry, opts.DefaultAgent); !known {
			fmt.Fprintf(e.stderr, "hub acp: default_agent %q in the config is not an agent hub knows; new sessions use %q instead (see 'hub agents')\n",
				opts.DefaultAgent, use)
		}
	}
	opts.StateDir = cmp.Or(opts.StateDir, config.StateDir())
	if err := acp.Serve(ctx, e.stdin, e.stdout, opts); err != nil {
		e.log.Error().Err(err).Msg("acp server stopped")
		return exitError
	}
	return exitOK
}
