package all

import (
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/catalog"
	"github.com/hubdev/hub/adapters/gemini"
	"github.com/hubdev/hub/adapters/qoder"
	"github.com/hubdev/hub/internal/config"
)

// registerConfigACP registers every ACP agent from config (the Zed/JetBrains
// agent_servers shape). It runs after the built-in builders: protocol = "acp"
// replaces a built-in of that name, a pasted entry only fills a free name.
func registerConfigACP(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
	for _, name := range cfg.AgentNames() {
		ac := cfg.Agents[name]
		_, err := r.Get(name)
		if _, catalogued := catalog.Lookup(name); catalogued || !ac.IsACP(err == nil) || name == gemini.Name || name == qoder.Name {
			continue // a catalogued name is registered with its entry underneath
		}
		r.Register(acpclient.New(acpclient.Config{
			Name: name, Argv: ac.Argv(), Env: ac.Env, Model: ac.Model, Mode: ac.Mode, Logger: log, Sandbox: cfg.Sandbox.Policy(),
			Caps: adapters.Capabilities{Permissions: true, MCP: true, UsesEditorFS: true, Resume: true, Skills: "prompt",
				Notes: "generic ACP agent from config; capabilities are the agent's own"},
		}))
	}
}
