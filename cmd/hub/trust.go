package main

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/personas"
	"github.com/hubdev/hub/skills"
)

func init() { commands["trust"] = described("trust", runTrust) }

func runTrust(_ context.Context, e *env, args []string) int {
	fs := e.flagSet("trust")
	if code, ok := e.parseFlags(fs, args); !ok {
		return code
	}
	abs, err := filepath.Abs(cmp.Or(fs.Arg(0), e.cwd))
	if err != nil {
		return e.fail(exitUsage, "hub trust: %v\n", err)
	}
	files := slices.Concat(config.ProjectFiles(abs), skills.ProjectFiles(abs), personas.ProjectFiles(abs))
	for _, agent := range all.AgentFiles(abs) {
		files = append(files, agent.Files...)
	}
	slices.Sort(files) // a skill of .agents/skills is hub's, qodercli's and pi's
	files = slices.Compact(files)
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
