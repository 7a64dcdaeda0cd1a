package main

import (
	"context"
	"fmt"
)

const acpHelp = `Usage: hub acp

Not implemented yet.
`

func init() { commands["acp"] = command{run: runAcp, help: acpHelp} }

func runAcp(_ context.Context, e *env, _ []string) int {
	fmt.Fprintln(e.stderr, "hub acp: not implemented yet")
	return exitError
}
