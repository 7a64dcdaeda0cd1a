package all

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/personas"
)

// warned holds the persona warnings logged so far: a registry built again in the same
// process (hub run --max-turns) does not repeat them.
var warned sync.Map

func warnOnce(log zerolog.Logger, msg string) {
	if _, seen := warned.LoadOrStore(msg, true); !seen {
		log.Warn().Msg(msg)
	}
}

// ForCwd is base's agents with the personas visible from cfg.Cwd (cfg is the config
// loaded there) in place of base's own.
func ForCwd(base *adapters.Registry, cfg *config.Config, log zerolog.Logger) *adapters.Registry {
	r := adapters.NewRegistry()
	if base != nil {
		for _, n := range base.Names() {
			a, _ := base.Get(n) // a name it lists
			if _, _, persona := adapters.Describe(a); !persona {
				r.Register(a)
			}
		}
	}
	registerPersonas(r, cfg, log)
	return r
}

// registerPersonas registers every persona visible from the config's directory after the
// agents, on its backend (the file's agent, else the default agent, else claude). A
// persona never takes an agent's name; an untrusted one is registered but cannot start,
// so it is listed with the reason.
func registerPersonas(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
	list, warns := personas.Discover(personas.Dirs{Cwd: cfg.Cwd, TrustProject: cfg.TrustProject})
	for _, w := range warns {
		warnOnce(log, w.String())
	}
	agents := r.Names()
	for _, p := range list {
		if slices.Contains(agents, p.Name) {
			warnOnce(log, fmt.Sprintf("%s: persona %q is not used: an agent has that name", p.File, p.Name))
			continue
		}
		for _, n := range p.Notes {
			warnOnce(log, n)
		}
		p.Agent = cmp.Or(p.Agent, cfg.DefaultAgent, "claude")
		a := &personas.Adapter{P: p}
		if slices.Contains(agents, p.Agent) { // else Ready and Start say the backend is unknown
			a.Backend, _ = r.Get(p.Agent)
		}
		r.Register(a)
	}
}
