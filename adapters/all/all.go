// Package all builds the registry of every adapter hub ships, plus the
// agents and provider profiles named in config. The list below is the one
// place an agent is added: its package, and one line here.
package all

import (
	"os"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/adapters/codex"
	"github.com/hubdev/hub/adapters/gemini"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/adapters/pi"
	"github.com/hubdev/hub/adapters/qoder"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

// Registry returns a registry with the built-in adapters and every agent
// and provider profile from cfg. A later registration replaces an earlier
// one of the same name.
func Registry(cfg *config.Config, log zerolog.Logger) *adapters.Registry {
	r := adapters.NewRegistry()
	cli := func(name string, build func(config.AgentConfig) adapters.Adapter) {
		if ac := cfg.Agents[name]; !ac.Disabled {
			r.Register(build(ac))
		}
	}
	cli(gemini.Name, func(ac config.AgentConfig) adapters.Adapter { return gemini.New(ac, "", log) })
	cli(qoder.Name, func(ac config.AgentConfig) adapters.Adapter { return qoder.New(ac, "", log) })
	cli("claude", func(ac config.AgentConfig) adapters.Adapter { return claude.New(ac, log) })
	cli("codex", func(ac config.AgentConfig) adapters.Adapter { return codex.New(ac, log) })
	registerNative(r, cfg, log)
	cli(pi.Name, func(ac config.AgentConfig) adapters.Adapter { return pi.New(ac, log) })
	registerConfigACP(r, cfg, log)
	registerReplay(r, cfg)
	return r
}

// registerNative registers the native agent loop's provider profiles.
func registerNative(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
	perms := func() permission.Checker {
		s, err := permission.New(cfg.Permissions)
		if err != nil {
			log.Warn().Err(err).Msg("permission rules ignored")
			s, _ = permission.New(config.PermissionsConfig{})
		}
		return s
	}
	openai.Register(r, cfg, openai.Options{Logger: log, Permissions: perms}, os.Getenv)
}
