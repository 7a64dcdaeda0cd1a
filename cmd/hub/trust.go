package main

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/personas"
	"github.com/hubdev/hub/skills"
)

const trustHelp = `Usage: hub trust [DIR]

Trusts the project config files that apply in DIR (default: the current
directory): DIR/.hub/config.toml and those of its parents up to the
repository root, as they are now, and the SKILL.md of each project skill
(.hub/skills, .agents/skills) and project persona (.hub/agents,
.claude/agents), and DIR's .claude/settings.json, .claude/settings.local.json and
.mcp.json, which claude reads only once trusted. Until then hub ignores their keys that run
code or widen authority (agent commands, args, env and options, provider
endpoints, presets and keys, allow and ask rules, modes wider than yours,
log files, hooks), a project skill's allowed-tools, and a project skill
named like one of yours (yours is used); a file that changes is untrusted
again. The trust store is in hub's state directory. --trust-project trusts
them for one run instead.
`

func init() { commands["trust"] = command{run: runTrust, help: trustHelp} }

func runTrust(_ context.Context, e *env, args []string) int {
	fs := newFlagSet("trust", e.stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	abs, err := filepath.Abs(cmp.Or(fs.Arg(0), e.cwd))
	if err != nil {
		return e.fail(exitUsage, "hub trust: %v\n", err)
	}
	files := slices.Concat(config.ProjectFiles(abs), skills.ProjectFiles(abs), personas.ProjectFiles(abs), claude.ProjectSettings(abs))
	if err := config.TrustFiles(files); err != nil {
		return e.fail(exitError, "hub trust: %v\n", err)
	}
	if len(files) == 0 {
		return e.fail(exitOK, "hub trust: no .hub/config.toml or project skill applies in %s\n", abs)
	}
	for _, f := range files {
		fmt.Fprintf(e.stdout, "trusted %s\n", f)
	}
	return exitOK
}
