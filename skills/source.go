package skills

import (
	"strings"

	"github.com/hubdev/hub/adapters"
)

// Source serves skills to the ACP server as slash commands (acp.SkillSource).
type Source struct {
	UserDir      string // overrides config.UserDir() (tests)
	TrustProject bool
}

func (s Source) Commands(cwd string) []adapters.Command {
	list, _ := DiscoverTrusting(cwd, s.UserDir, s.TrustProject)
	out := make([]adapters.Command, 0, len(list))
	for _, sk := range list {
		out = append(out, adapters.Command{Name: sk.Name, Description: sk.Description, InputHint: "what to do with the " + sk.Name + " skill"})
	}
	return out
}

// Expand returns the prompt for `/name args`.
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
