package personas

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/permission"
)

// Check is what 'hub doctor' says about a persona; ok is false when its
// Verdict is not ready.
func Check(a *Adapter) (problems []string, ok bool) {
	p := a.P
	if !p.Trusted {
		problems = append(problems, p.Untrusted)
	} else if a.Backend == nil {
		problems = append(problems, a.noBackend().Error())
	} else if err := adapters.Ready(a.Backend); err != nil {
		problems = append(problems, err.Error())
	}
	for _, t := range append(slices.Clone(p.Tools), p.Disallowed...) {
		if !knownTool(t) {
			problems = append(problems, fmt.Sprintf("tool %q is not one hub knows: use Claude's names (Read, Grep, Glob, Edit, Write, Bash, WebFetch), hub's tool names or kinds, or mcp__server__tool", t))
		}
	}
	if a.Backend != nil {
		switch _, warn, err := p.modeOn(a.Backend.Capabilities(), a.Backend.Name()); {
		case err != nil:
			problems = append(problems, err.Error())
		case warn != "":
			problems = append(problems, warn)
		}
	}
	return append(problems, p.Notes...), a.Ready() == nil
}

func knownTool(t string) bool {
	l := strings.ToLower(t)
	if _, ok := permission.KindOfTool(l); ok || adapters.IsKind(l) || strings.HasPrefix(l, "mcp__") || l == "delegate_agent" {
		return true
	}
	// Claude's tools hub has no kind for: kept, never gated by kind.
	return slices.Contains([]string{"todowrite", "task", "agent", "exitplanmode", "bashoutput", "killshell", "slashcommand"}, strings.SplitN(l, "(", 2)[0])
}
