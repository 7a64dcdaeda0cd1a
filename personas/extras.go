package personas

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/skills"
)

// skillInstructions are the persona's skills as system-level text; a
// skill's allowed-tools are not applied (a persona only narrows).
func (p Persona) skillInstructions(cwd string) (string, []string) {
	var list []skills.Skill
	var warns []string
	for _, name := range p.Skills {
		s, err := skills.FindTrusting(cwd, "", name, false)
		if err != nil {
			warns = append(warns, fmt.Sprintf("persona %s: skill %s: %v", p.Name, name, err))
			continue
		}
		list = append(list, s)
	}
	return skills.Instructions(list), warns // "" for none
}

// MayDelegate: a persona only when its tools leave delegation and it does
// not disallow it.
func MayDelegate(a adapters.Adapter) bool {
	p, ok := a.(*Adapter)
	return !ok || p.P.mayDelegate()
}

func (p Persona) mayDelegate() bool { return p.Filter().Permits("delegate_agent", adapters.KindOther) }

func (p Persona) delegation(opts *adapters.SessionOptions) {
	if !p.mayDelegate() {
		opts.Delegate, opts.DelegateAgents = nil, nil
	}
	if len(p.Delegates) == 0 || opts.Delegate == nil {
		return
	}
	opts.DelegateAgents = slices.DeleteFunc(slices.Clone(opts.DelegateAgents), func(entry string) bool {
		name, _, _ := strings.Cut(entry, " ")
		return !slices.Contains(p.Delegates, name)
	})
	next := opts.Delegate
	opts.Delegate = func(ctx context.Context, r adapters.DelegateRequest) (string, error) {
		if err := p.delegatesTo(r); err != nil {
			return "", err
		}
		return next(ctx, r)
	}
}

// DelegatesTo refuses a persona's delegate request that starts an agent it
// does not name; for hub's MCP server, which no persona wraps.
func DelegatesTo(a adapters.Adapter, r adapters.DelegateRequest) error {
	if p, ok := a.(*Adapter); ok {
		return p.P.delegatesTo(r)
	}
	return nil
}

func (p Persona) delegatesTo(r adapters.DelegateRequest) error {
	if r.Session == "" && len(p.Delegates) > 0 && !slices.Contains(p.Delegates, r.Agent) {
		return fmt.Errorf("persona %s may delegate only to %s, not %q", p.Name, strings.Join(p.Delegates, ", "), r.Agent)
	}
	return nil
}
