package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hubdev/hub/internal/config"
)

const trustHelp = `Usage: hub trust [DIR]

Trusts the project config files that apply in DIR (default: the current
directory): DIR/.hub/config.toml and those of its parents up to the
repository root, as they are now. Until then hub ignores their keys that
run code or widen authority (agent commands, args, env and options,
provider endpoints and keys, allow and ask rules, wider modes, log files);
a file that changes is untrusted again. The trust store is in hub's state
directory. --trust-project trusts them for one run instead.
`

func init() { commands["trust"] = command{run: runTrust, help: trustHelp} }

func runTrust(_ context.Context, e *env, args []string) int {
	fs := newFlagSet("trust", trustHelp, e.stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	dir := e.cwd
	if fs.NArg() > 0 {
		dir = fs.Arg(0)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "hub trust: %v\n", err)
		return exitUsage
	}
	files, err := config.Trust(abs)
	if err != nil {
		fmt.Fprintf(e.stderr, "hub trust: %v\n", err)
		return exitError
	}
	if len(files) == 0 {
		fmt.Fprintf(e.stderr, "hub trust: no .hub/config.toml applies in %s\n", abs)
		return exitOK
	}
	for _, f := range files {
		fmt.Fprintf(e.stdout, "trusted %s\n", f)
	}
	return exitOK
}

// untrustedNotice tells an editor session which project keys hub ignored.
func untrustedNotice(cfg *config.Config) string {
	if len(cfg.Ignored) == 0 {
		return ""
	}
	files := map[string][]string{}
	var order []string
	for _, ig := range cfg.Ignored {
		if files[ig.File] == nil {
			order = append(order, ig.File)
		}
		files[ig.File] = append(files[ig.File], ig.Key)
	}
	var b strings.Builder
	for _, f := range order {
		fmt.Fprintf(&b, "hub ignored %s from the untrusted project config %s; run 'hub trust' in %s to use them.\n",
			strings.Join(files[f], ", "), f, filepath.Dir(filepath.Dir(f)))
	}
	return strings.TrimSpace(b.String())
}

// untrustedAgent reports why agent cannot run: it is defined (or made the
// default) only by an untrusted project file.
func untrustedAgent(cfg *config.Config, agent string, fromDefault bool) error {
	if file, ok := cfg.UntrustedAgents[agent]; ok {
		return fmt.Errorf("untrusted project config %s defines agent %q: run 'hub trust' in %s (or pass --trust-project) to let it run",
			file, agent, filepath.Dir(filepath.Dir(file)))
	}
	if fromDefault && cfg.UntrustedDefault != "" {
		return fmt.Errorf("untrusted project config sets default_agent %q: run 'hub trust' (or pass --trust-project, or --agent)", cfg.UntrustedDefault)
	}
	return nil
}
