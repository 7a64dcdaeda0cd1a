package all

import (
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/catalog"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc"
)

// registerCatalog registers every catalogued ACP agent whose program is
// installed (or that [agents.NAME] gives a command), under the user's
// overrides, unless a built-in or a provider profile has the name or
// config disables it. Capabilities are the agent's own initialize answer
// as doctor cached it, until a session learns them.
func registerCatalog(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
	var bins []string
	for _, e := range catalog.Entries() {
		bins = append(bins, e.Bin)
	}
	found := proc.FindPrograms(bins)
	for _, e := range catalog.Entries() {
		user := cfg.Agents[e.Name]
		if _, err := r.Get(e.Name); err == nil || user.Disabled {
			continue
		}
		eff := e.Spec().ACPConfig(user)
		path := found[e.Bin]
		if len(user.Command) > 0 {
			path, _ = proc.LookPath(eff.Command[0])
		} else if path == "" {
			continue // not installed: doctor --all says how to install it
		}
		caps := adapters.Capabilities{Permissions: true, MCP: true, UsesEditorFS: true, Resume: true, Skills: "prompt"}
		if init, ok := acpclient.CachedInitialize(config.CacheDir(), path, eff.Args); ok {
			caps = acpclient.CapsFromInit(init)
		}
		caps.Notes = e.Title + " from hub's catalogue of ACP agents; capabilities are its own initialize answer"
		r.Register(acpclient.New(acpclient.Config{
			Name: e.Name, Argv: eff.Argv(), Env: eff.Env, Model: eff.Model, Mode: eff.Mode, Logger: log,
			Caps: caps, LearnCaps: true, LoginHint: e.LoginFix(), Sandbox: cfg.Sandbox.Policy(),
		}))
	}
}
