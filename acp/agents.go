package acp

import (
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

// check is nil when a can run here: personas.Verdict with each agent's
// readiness cached. Two sessions' personas of one name may be different
// files, one trusted and one not: only an agent's readiness is cached.
func (r *readiness) check(a adapters.Adapter) error {
	_, err := personas.Verdict(a, r.agent)
	return err
}

func (r *readiness) agent(a adapters.Adapter) error {
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
// when it cannot, and so does a persona that cannot run as written, each
// marked with its verdict and the reason, as 'hub agents' says them.
func (s *server) agentChoices(reg *adapters.Registry, current string) []schema.SessionConfigSelectOption {
	names := reg.Names()
	if len(s.opts.Agents) > 0 {
		names = slices.DeleteFunc(slices.Clone(s.opts.Agents), func(n string) bool { return !reg.Has(n) })
	}
	if !slices.Contains(names, current) {
		names = append(names, current)
	}
	var agents, persons []schema.SessionConfigSelectOption // personas after the agents
	for _, n := range names {
		a, err := reg.Get(n)
		state := "not ready"
		if err == nil {
			state, err = personas.Verdict(a, s.ready.agent)
		}
		o := schema.SessionConfigSelectOption{Value: n, Name: n}
		desc, backend, persona := adapters.Describe(a)
		switch {
		case err == nil && persona: // what it is for and what it runs on
			o.Description = firstLine(desc) + " (on " + backend + ")"
		case err == nil:
		case state != "not ready" || n == current: // choosing it is refused with the reason
			o.Name, o.Description = n+" ("+state+")", firstLine(err.Error())
		default:
			continue
		}
		if persona {
			persons = append(persons, o)
		} else {
			agents = append(agents, o)
		}
	}
	return append(agents, persons...)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
