package openai

import (
	"cmp"
	"maps"
	"slices"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// Register adds the native agents to r: "openai" (env OPENAI_BASE_URL,
// OPENAI_API_KEY, OPENAI_MODEL over the openai preset), one agent per
// [providers.NAME] profile, local-server presets, and hosted presets whose
// API key variable is set. Presets never replace an adapter already
// registered under the same name; configured profiles do.
func Register(r *adapters.Registry, cfg *config.Config, opts Options, getenv func(string) string) {
	if cfg == nil {
		cfg = &config.Config{}
	}
	disabled := func(name string) bool { return cfg.Agents[name].Disabled }
	add := func(p Profile) {
		p.Model, p.Stream = cmp.Or(cfg.Agents[p.Name].Model, p.Model), p.Stream && !cfg.NoStream
		r.Register(New(p, opts))
	}
	if p, err := EnvProfile(cfg, getenv); err != nil {
		opts.Logger.Warn().Err(err).Msg("openai agent not registered")
	} else if !disabled("openai") {
		add(p)
	}
	for _, n := range slices.Sorted(maps.Keys(cfg.Providers)) {
		if n == "openai" || disabled(n) {
			continue
		}
		p, err := ResolveProfile(n, cfg.Providers[n])
		if err != nil {
			opts.Logger.Warn().Err(err).Msg("provider profile not registered")
			continue
		}
		add(p)
	}
	for _, n := range PresetNames() {
		_, configured := cfg.Providers[n]
		if _, err := r.Get(n); n == "openai" || n == "azure" || disabled(n) || configured || err == nil {
			continue
		}
		if p, err := ResolveProfile(n, config.ProviderConfig{}); err == nil && (p.Local || (p.APIKeyEnv != "" && getenv(p.APIKeyEnv) != "")) {
			add(p)
		}
	}
}
