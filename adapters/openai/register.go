package openai

import (
	"cmp"
	"maps"
	"slices"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

type Named struct {
	Name    string
	Profile Profile
	Err     error
}

// Profiles lists the native profiles of cfg, each name once: "openai"
// (EnvProfile), one per [providers.NAME] profile, then the shipped presets
// the config does not name; a disabled agent's is left out.
func Profiles(cfg *config.Config, getenv func(string) string) []Named {
	names := append(append([]string{"openai"}, slices.Sorted(maps.Keys(cfg.Providers))...), PresetNames()...)
	var out []Named
	for i, n := range names {
		if slices.Index(names, n) < i || cfg.Agents[n].Disabled {
			continue // listed already, or disabled
		}
		j := Named{Name: n}
		if n == "openai" {
			j.Profile, j.Err = EnvProfile(cfg, getenv)
		} else {
			j.Profile, j.Err = ResolveProfile(n, cfg.Providers[n])
		}
		out = append(out, j)
	}
	return out
}

// Register adds the native agents to r (Profiles): "openai" and the
// configured profiles, then the local-server presets and the hosted
// presets whose API key variable is set. Presets never replace an adapter
// already registered under the same name; configured profiles do.
func Register(r *adapters.Registry, cfg *config.Config, opts Options, getenv func(string) string) {
	if cfg == nil {
		cfg = &config.Config{}
	}
	for _, j := range Profiles(cfg, getenv) {
		p := j.Profile
		_, configured := cfg.Providers[j.Name]
		taken := r.Has(j.Name) // an adapter has the name already
		switch preset := j.Name != "openai" && !configured; {
		case j.Err != nil && !preset:
			opts.Logger.Warn().Err(j.Err).Str("profile", j.Name).Msg("native profile not registered")
		case j.Err != nil, preset && (j.Name == "azure" || taken || !p.Local && (p.APIKeyEnv == "" || getenv(p.APIKeyEnv) == "")):
		default:
			p.Model, p.Stream = cmp.Or(cfg.Agents[p.Name].Model, p.Model), p.Stream && !cfg.NoStream
			r.Register(New(p, opts))
		}
	}
}
