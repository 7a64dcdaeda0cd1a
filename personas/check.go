package personas

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/permission"
)

// Check is what 'hub doctor' says about a persona registered as a: whether
// it can run (trust, its backend), and the tools and mode its backend
// does not have. ok is false when it cannot run as written.
func Check(a *Adapter) (problems []string, ok bool) {
	p := a.P
	ok = true
	if !p.Trusted {
		problems, ok = append(problems, p.Untrusted), false
	}
	if err := a.backendReady(); err != nil && p.Trusted {
		problems, ok = append(problems, err.Error()), false
	}
	for _, t := range append(slices.Clone(p.Tools), p.Disallowed...) {
		if !knownTool(t) {
			problems = append(problems, fmt.Sprintf("tool %q is not one hub knows: use Claude's names (Read, Grep, Glob, Edit, Write, Bash, WebFetch), hub's tool names or kinds, or mcp__server__tool", t))
		}
	}
	if a.Backend != nil {
		switch _, warn, err := p.modeOn(a.Backend.Capabilities(), a.Backend.Name()); {
		case err != nil:
			problems, ok = append(problems, err.Error()), false
		case warn != "":
			problems = append(problems, warn)
		}
	}
	return append(problems, p.Notes...), ok
}

func knownTool(t string) bool {
	l := strings.ToLower(t)
	if _, ok := permission.KindOfTool(l); ok || adapters.IsKind(l) || strings.HasPrefix(l, "mcp__") || l == "delegate_agent" {
		return true
	}
	// Claude's tools hub has no kind for: kept, never gated by kind.
	return slices.Contains([]string{"todowrite", "task", "agent", "exitplanmode", "bashoutput", "killshell", "slashcommand"}, strings.SplitN(l, "(", 2)[0])
}

func modeIDs(opts []adapters.Option) string {
	var ids []string
	for _, o := range opts {
		ids = append(ids, o.ID)
	}
	return cmp.Or(strings.Join(ids, ", "), "none")
}
