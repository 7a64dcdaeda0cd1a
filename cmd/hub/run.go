package main

import (
	"context"
	"fmt"
)

const runHelp = `Usage: hub run

Not implemented yet.
`

func init() { commands["run"] = command{run: runRun, help: runHelp} }

func runRun(_ context.Context, e *env, _ []string) int {
	fmt.Fprintln(e.stderr, "hub run: not implemented yet")
	return exitError
}
