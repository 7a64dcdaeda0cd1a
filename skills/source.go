package skills

import (
	"strings"

	"github.com/hubdev/hub/adapters"
)

// Source serves skills to the ACP server: each skill is a slash command, and
// `/name args` expands into the skill body, its referenced files and args.
// It satisfies acp.SkillSource.
type Source struct {
	// UserDir overrides config.UserDir() (tests).
	UserDir string
	// TrustProject trusts every project skill (--trust-project).
	TrustProject bool
}

// Commands lists the skills visible from cwd as slash commands.
func (s Source) Commands(cwd string) []adapters.Command {
	list, _ := DiscoverTrusting(cwd, s.UserDir, s.TrustProject)
	out := make([]adapters.Command, 0, len(list))
	for _, sk := range list {
		out = append(out, adapters.Command{Name: sk.Name, Description: sk.Description, InputHint: "what to do with the " + sk.Name + " skill"})
	}
	return out
}

// Expand returns the prompt for `/name args`; ok is false when no skill of
// that name is visible from cwd.
func (s Source) Expand(cwd, name, args string) (string, bool) {
	// "/name" may be followed by a newline or tab rather than a space.
	if i := strings.IndexAny(name, " \t\r\n"); i >= 0 {
		name, args = name[:i], strings.TrimSpace(name[i+1:]+" "+args)
	}
	sk, err := FindTrusting(cwd, s.UserDir, name, s.TrustProject)
	if err != nil {
		return "", false
	}
	return sk.Prompt(args), true
}
