package main

import (
	"context"
	"fmt"
)

const skillsHelp = `Usage: hub skills

Not implemented yet.
`

func init() { commands["skills"] = command{run: runSkills, help: skillsHelp} }

func runSkills(_ context.Context, e *env, _ []string) int {
	fmt.Fprintln(e.stderr, "hub skills: not implemented yet")
	return exitError
}
