package conversation

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
)

// Setup is what a session's agent runs with that the user may change while
// it starts or runs.
type Setup struct {
	Model, Mode string
	Options     map[string]string // config options other than model and mode
	Delegation  bool              // the agent gets hub's delegate tool
	MCPServers  []adapters.MCPServer
	AddDirs     []string
}

// MCPFor is the MCP servers an agent with caps takes, logging each one it
// is given or cannot take (C19).
func MCPFor(caps adapters.Capabilities, servers []adapters.MCPServer, log zerolog.Logger) []adapters.MCPServer {
	out := make([]adapters.MCPServer, 0, len(servers))
	for _, m := range servers {
		log := log.With().Str("server", m.Name).Str("type", m.Type).Logger()
		if stdio := m.Type == "stdio"; stdio && !caps.MCP || !stdio && !caps.MCPHTTP {
			log.Warn().Msg("the agent takes no MCP servers of this type; skipped")
			continue
		}
		log.Info().Msg("MCP server handed to the agent")
		out = append(out, m)
	}
	return out
}

// Reach brings agent session b, which runs with have, to s live, else
// returns adapters.ErrNeedsRestart.
func (s Setup) Reach(ctx context.Context, b adapters.Session, have Setup) error {
	if s.Delegation != have.Delegation || !slices.Equal(s.AddDirs, have.AddDirs) || !reflect.DeepEqual(s.MCPServers, have.MCPServers) {
		return adapters.ErrNeedsRestart
	}
	if s.Model != have.Model || s.Mode != have.Mode {
		cfg, ok := b.(adapters.Configurable)
		if !ok {
			return adapters.ErrNeedsRestart
		}
		if s.Model != have.Model {
			if err := cfg.SetModel(ctx, s.Model); err != nil {
				return fmt.Errorf("set model %s: %w", s.Model, err)
			}
		}
		if s.Mode != have.Mode {
			if err := cfg.SetMode(ctx, s.Mode); err != nil {
				return fmt.Errorf("set mode %s: %w", s.Mode, err)
			}
		}
	}
	return s.reachOptions(ctx, b, have)
}

func (s Setup) reachOptions(ctx context.Context, b adapters.Session, have Setup) error {
	changed := slices.DeleteFunc(slices.Sorted(maps.Keys(s.Options)), func(id string) bool { return have.Options[id] == s.Options[id] })
	if len(changed) == 0 {
		return nil
	}
	set, ok := b.(adapters.OptionSetter)
	if !ok {
		return adapters.ErrNeedsRestart
	}
	for _, id := range changed {
		if err := set.SetOption(ctx, id, s.Options[id]); err != nil {
			return fmt.Errorf("set %s %s: %w", id, s.Options[id], err)
		}
	}
	return nil
}
