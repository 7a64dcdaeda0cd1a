package all

import (
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/pi"
	"github.com/hubdev/hub/internal/config"
)

func init() {
	builders = append(builders, func(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
		ac := cfg.Agents[pi.Name]
		if ac.Disabled {
			return
		}
		r.Register(pi.New(ac, log))
	})
}
