package all

import (
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/codex"
	"github.com/hubdev/hub/internal/config"
)

func init() {
	builders = append(builders, func(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
		ac := cfg.Agents["codex"]
		if ac.Disabled {
			return
		}
		r.Register(codex.New(ac, log))
	})
}
