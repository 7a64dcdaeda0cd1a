package all

import (
	"os"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

func init() {
	builders = append(builders, func(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
		perms := func() permission.Checker {
			s, err := permission.New(cfg.Permissions)
			if err != nil {
				log.Warn().Err(err).Msg("permission rules ignored")
				s, _ = permission.New(config.PermissionsConfig{})
			}
			return s
		}
		openai.Register(r, cfg, openai.Options{Logger: log, Permissions: perms}, os.Getenv)
	})
}
