// Package all builds the registry of every adapter hub ships, plus the
// agents and provider profiles named in config. Each adapter registers a
// builder from its own file here, so adding one touches no shared line.
package all

import (
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// builder registers zero or more adapters built from cfg.
type builder func(r *adapters.Registry, cfg *config.Config, log zerolog.Logger)

var builders []builder

// Registry returns a registry with the built-in adapters and every agent
// and provider profile from cfg. Later builders override earlier names.
func Registry(cfg *config.Config, log zerolog.Logger) *adapters.Registry {
	r := adapters.NewRegistry()
	for _, b := range builders {
		b(r, cfg, log)
	}
	registerConfigACP(r, cfg, log)
	registerReplay(r, cfg)
	return r
}
