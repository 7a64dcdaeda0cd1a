package all

import (
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/catalog"
	"github.com/hubdev/hub/adapters/gemini"
	"github.com/hubdev/hub/adapters/qoder"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc"
)

// registerCatalog registers every catalogued ACP agent whose program is installed (or
// that [agents.NAME] gives a command), unless a built-in or a provider profile has the
// name or config disables it. Capabilities are the agent's initialize answer as doctor
// cached it, until a session learns them.
func registerCatalog(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
	var bins []string
	for _, e := range catalog.Entries() {
		bins = append(bins, e.Bin)
	}
	found := proc.FindPrograms(bins)
	for _, e := range catalog.Entries() {
		user := cfg.Agents[e.Name]
		if r.Has(e.Name) || user.Disabled {
			continue
		}
		eff := e.Spec().ACPConfig(user)
		path := found[e.Bin]
		if len(user.Command) > 0 {
			path, _ = proc.LookPath(eff.Command[0])
		} else if path == "" {
			continue // not installed: doctor --all says how to install it
		}
		c := acpConfig(e.Name, eff, cfg, log)
		if init, ok := acpclient.CachedInitialize(config.CacheDir(), path, eff.Args); ok {
			c.Caps = acpclient.CapsFromInit(init)
		}
		c.Caps.Notes = e.Title + " from hub's catalogue of ACP agents; capabilities are its own initialize answer"
		c.LearnCaps, c.LoginHint = true, e.LoginFix()
		r.Register(acpclient.New(c))
	}
}

// registerConfigACP registers every ACP agent from config (the Zed/JetBrains
// agent_servers shape): protocol = "acp" replaces a built-in of that name, a pasted entry
// only fills a free name.
func registerConfigACP(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
	for _, name := range cfg.AgentNames() {
		ac := cfg.Agents[name]
		if _, catalogued := catalog.Lookup(name); catalogued || !ac.IsACP(r.Has(name)) || name == gemini.Name || name == qoder.Name {
			continue // a catalogued name is registered with its entry underneath
		}
		c := acpConfig(name, ac, cfg, log)
		c.Caps.Notes = "generic ACP agent from config; capabilities are the agent's own"
		r.Register(acpclient.New(c))
	}
}

// acpConfig is the client of ACP agent name run as ac, with what every ACP agent can do.
func acpConfig(name string, ac config.AgentConfig, cfg *config.Config, log zerolog.Logger) acpclient.Config {
	return acpclient.Config{Name: name, Argv: ac.Argv(), Env: ac.Env, Model: ac.Model, Mode: ac.Mode, Logger: log, Sandbox: cfg.Sandbox.Policy(),
		Caps: adapters.Capabilities{Permissions: true, MCP: true, UsesEditorFS: true, Resume: true, Skills: "prompt"}}
}
