package acp

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/personas"
)

// readyFor is how long a readiness check is trusted: an agent installed
// while the editor runs shows up in the select soon after.
const readyFor = 10 * time.Second

// readiness caches whether each agent can run here.
type readiness struct {
	mu   sync.Mutex
	at   map[string]time.Time
	errs map[string]error
}

func (r *readiness) check(a adapters.Adapter) error {
	// Two sessions' personas of one name may be different files, one
	// trusted and one not: only the backend's readiness is cached.
	if p, ok := a.(*personas.Adapter); ok && p.P.Trusted && p.Backend != nil {
		a = p.Backend
	} else if ok {
		return p.Ready()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at == nil {
		r.at, r.errs = map[string]time.Time{}, map[string]error{}
	}
	name := a.Name()
	if at, ok := r.at[name]; ok && time.Since(at) < readyFor {
		return r.errs[name]
	}
	err := adapters.Ready(a)
	r.at[name], r.errs[name] = time.Now(), err
	return err
}

// agentChoices is the agent select: the pinned agents, else every
// registered one, that can run here. The session's own agent stays listed
// when it cannot, and an untrusted project's persona is listed, each
// marked with the reason.
func (s *server) agentChoices(reg *adapters.Registry, current string) []schema.SessionConfigSelectOption {
	names := reg.Names()
	if len(s.opts.Agents) > 0 {
		names = slices.DeleteFunc(slices.Clone(s.opts.Agents), func(n string) bool {
			_, err := reg.Get(n)
			return err != nil
		})
	}
	if !slices.Contains(names, current) {
		names = append(names, current)
	}
	slices.SortStableFunc(names, func(a, b string) int { return isPersona(reg, a) - isPersona(reg, b) }) // personas after the agents
	var out []schema.SessionConfigSelectOption
	for _, n := range names {
		a, err := reg.Get(n)
		if err == nil {
			err = s.ready.check(a)
		}
		switch {
		case err == nil:
			out = append(out, choice(n, a))
		case errors.Is(err, personas.ErrUntrusted):
			// listed as such: choosing it is refused with the reason
			out = append(out, schema.SessionConfigSelectOption{Value: n, Name: n + " (untrusted)", Description: firstLine(err.Error())})
		case n == current:
			out = append(out, schema.SessionConfigSelectOption{Value: n, Name: n + " (not ready)", Description: firstLine(err.Error())})
		}
	}
	return out
}

// isPersona is 1 for an agent defined in a persona file, else 0.
func isPersona(reg *adapters.Registry, name string) int {
	if a, err := reg.Get(name); err == nil {
		if _, _, ok := adapters.Describe(a); ok {
			return 1
		}
	}
	return 0
}

// choice is an agent's option in the select; a persona's says what it is
// for and what it runs on.
func choice(name string, a adapters.Adapter) schema.SessionConfigSelectOption {
	o := schema.SessionConfigSelectOption{Value: name, Name: name}
	if desc, backend, ok := adapters.Describe(a); ok {
		o.Description = firstLine(desc) + " (on " + backend + ")"
	}
	return o
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
