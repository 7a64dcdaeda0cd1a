package all

import (
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/gemini"
	"github.com/hubdev/hub/adapters/qoder"
	"github.com/hubdev/hub/internal/config"
)

// ACP agents: gemini and qodercli built in, plus every [agents.NAME] with
// protocol = "acp" and a command (the Zed/JetBrains agent_servers shape).
func init() {
	builders = append(builders, func(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
		if ac := cfg.Agents[gemini.Name]; !ac.Disabled {
			r.Register(gemini.New(ac, "", log))
		}
		if ac := cfg.Agents[qoder.Name]; !ac.Disabled {
			r.Register(qoder.New(ac, "", log))
		}
		for _, name := range cfg.AgentNames() {
			ac := cfg.Agents[name]
			if ac.Protocol != "acp" || len(ac.Command) == 0 || ac.Disabled || name == gemini.Name || name == qoder.Name {
				continue
			}
			r.Register(acpclient.New(acpclient.Config{
				Name: name, Argv: ac.Argv(), Env: ac.Env, Model: ac.Model, Mode: ac.Mode, Logger: log,
				Caps: adapters.Capabilities{Permissions: true, MCP: true, UsesEditorFS: true, Resume: true, Skills: "prompt",
					Notes: "generic ACP agent from config; capabilities are the agent's own"},
			}))
		}
	})
}
