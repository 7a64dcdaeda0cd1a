package main

import (
	"context"
	"fmt"
)

const doctorHelp = `Usage: hub doctor

Not implemented yet.
`

func init() { commands["doctor"] = command{run: runDoctor, help: doctorHelp} }

func runDoctor(_ context.Context, e *env, _ []string) int {
	fmt.Fprintln(e.stderr, "hub doctor: not implemented yet")
	return exitError
}
