package all

import (
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/config"
)

func init() {
	builders = append(builders, func(r *adapters.Registry, cfg *config.Config, _ zerolog.Logger) {
		script := ""
		if a, ok := cfg.Agents[replay.Name]; ok {
			if a.Disabled {
				return
			}
			script, _ = a.Options["script"].(string)
		}
		r.Register(replay.New(script))
	})
}
