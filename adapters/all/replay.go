package all

import (
	"cmp"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/config"
)

// registerReplay registers the scripted test agent only where the config
// asks for it (type = "replay"), under the entry's name; it is never listed
// by default.
func registerReplay(r *adapters.Registry, cfg *config.Config) {
	for _, name := range cfg.AgentNames() {
		ac := cfg.Agents[name]
		if ac.Type != config.TypeReplay || ac.Disabled {
			continue
		}
		a := replay.New(cmp.Or(ac.Script, ac.Option("script")))
		a.AgentName = name
		r.Register(a)
	}
}
