package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/hubdev/hub/detect"
	"github.com/hubdev/hub/skills"
)

func init() { commands["skills"] = described("skills", runSkills) }

func runSkills(_ context.Context, e *env, args []string) int {
	if len(args) > 0 && args[0] == "list" {
		args = args[1:]
	}
	fs := e.flagSet("skills")
	asJSON := fs.Bool("json", false, "print JSON: {skills: [...], warnings: [...]}")
	if code, ok := e.parseNoArgs(fs, args); !ok {
		return code
	}
	list, warns := skills.DiscoverTrusting(e.cwd, "", e.trustProject)
	if *asJSON { // [] rather than null when there are none
		return printJSON(e.stdout, struct {
			Skills   []skills.Skill   `json:"skills"`
			Warnings []skills.Warning `json:"warnings"`
		}{append([]skills.Skill{}, list...), append([]skills.Warning{}, warns...)})
	}
	for _, w := range warns {
		fmt.Fprintf(e.stderr, "warning: skipped skill %s\n", w)
	}
	if len(list) == 0 {
		return e.fail(exitOK, "no skills found (looked in .hub/skills and .agents/skills up to the repository root, and the user config dir's skills/)\n")
	}
	table(e.stdout, "SKILL\tSOURCE\tDESCRIPTION", list, func(s skills.Skill) string {
		src := s.Source
		if !s.Trusted {
			src += " (untrusted)" // instructions only until 'hub trust'
		}
		return fmt.Sprintf("%s\t%s\t%s", s.Name, src, detect.Clip(strings.Join(strings.Fields(s.Description), " "), 50))
	})
	return exitOK
}
