// Package all builds the registry of every adapter hub ships, plus the agents and
// provider profiles named in config. The agents list is the one place an agent is added.
package all

import (
	"cmp"
	"maps"
	"os"
	"slices"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/agentspec"
	"github.com/hubdev/hub/adapters/catalog"
	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/adapters/codex"
	"github.com/hubdev/hub/adapters/gemini"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/adapters/pi"
	"github.com/hubdev/hub/adapters/qoder"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
)

type agent struct {
	doctor agentspec.Spec
	build  func(*config.Config, config.AgentConfig, zerolog.Logger) adapters.Adapter
}

var agents = []agent{
	{claude.Doctor, func(cfg *config.Config, ac config.AgentConfig, log zerolog.Logger) adapters.Adapter {
		a := claude.New(ac, log)
		a.TrustProject = cfg.TrustProject
		return a
	}},
	{codex.Doctor, func(_ *config.Config, ac config.AgentConfig, log zerolog.Logger) adapters.Adapter {
		return codex.New(ac, log)
	}},
	{gemini.Doctor, func(cfg *config.Config, ac config.AgentConfig, log zerolog.Logger) adapters.Adapter {
		return gemini.New(gemini.Trusting(ac, cfg.TrustProject), "", log)
	}},
	{qoder.Doctor, func(cfg *config.Config, ac config.AgentConfig, log zerolog.Logger) adapters.Adapter {
		return qoder.New(ac, "", cfg.TrustProject, log)
	}},
	{pi.Doctor, func(cfg *config.Config, ac config.AgentConfig, log zerolog.Logger) adapters.Adapter {
		a := pi.New(ac, log)
		a.SetTrustProject(cfg.TrustProject)
		return a
	}},
}

// AgentFile is a set of project files an agent CLI reads, with what it does without them.
type AgentFile struct {
	Files   []string
	Without string
}

// AgentFiles are the files of the project in cwd that an agent CLI reads unasked and hub
// lets it read only once 'hub trust' recorded them.
func AgentFiles(cwd string) []AgentFile {
	return []AgentFile{
		{claude.ProjectSettings(cwd), "claude starts without it (its hooks, allow rules, MCP servers)"},
		{qoder.ProjectSettings(cwd), "qodercli starts without it (its hooks, allow rules, MCP servers)"},
		{pi.ProjectSettings(cwd), "pi starts without its extensions, skills, prompt templates and system prompts, and not at all with its settings (they run code)"},
	}
}

// Registry returns a registry with the built-in adapters and every agent and provider
// profile from cfg. A provider profile or an ACP agent from config replaces a CLI of
// that name.
func Registry(cfg *config.Config, log zerolog.Logger) *adapters.Registry {
	r := adapters.NewRegistry()
	for _, a := range agents {
		if ac := cfg.Agents[a.doctor.Name]; !ac.Disabled {
			r.Register(a.build(cfg, ac, log))
		}
	}
	registerNative(r, cfg, log)
	registerCatalog(r, cfg, log)
	registerConfigACP(r, cfg, log)
	registerReplay(r, cfg)
	registerPersonas(r, cfg, log)
	return r
}

func registerNative(r *adapters.Registry, cfg *config.Config, log zerolog.Logger) {
	hk, err := hooks.New(cfg.Hooks)
	if err != nil {
		log.Warn().Err(err).Msg("hooks ignored")
	}
	openai.Register(r, cfg, openai.Options{Logger: log, TranscriptDir: config.TranscriptDir(), MCPServers: mcpServers(cfg),
		Hooks: hk, Sandbox: cfg.Sandbox.Policy()}, os.Getenv)
}

// registerReplay registers the scripted test agent only where the config asks for it
// (type = "replay"), under the entry's name.
func registerReplay(r *adapters.Registry, cfg *config.Config) {
	for _, name := range cfg.AgentNames() {
		ac := cfg.Agents[name]
		if ac.Type != config.TypeReplay || ac.Disabled {
			continue
		}
		a := replay.New(cmp.Or(ac.Script, ac.Option("script")))
		a.AgentName = name
		r.Register(a)
	}
}

// DoctorSpecs are the agent CLIs `hub doctor` checks: the built-in ones, then the
// catalogued ACP agents no built-in shadows.
func DoctorSpecs() []agentspec.Spec {
	var specs []agentspec.Spec
	for _, a := range agents {
		specs = append(specs, a.doctor)
	}
	shadowed := func(s agentspec.Spec) bool {
		return slices.ContainsFunc(agents, func(a agent) bool { return a.doctor.Name == s.Name })
	}
	return append(specs, slices.DeleteFunc(catalog.Specs(), shadowed)...)
}

// mcpServers are the enabled [mcp_servers] of the config, for the native loop.
func mcpServers(cfg *config.Config) []adapters.MCPServer {
	var out []adapters.MCPServer
	for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		m := cfg.MCPServers[name]
		if m.Disabled {
			continue
		}
		typ := "stdio"
		if m.URL != "" {
			typ = "http"
		}
		out = append(out, adapters.MCPServer{Name: name, Type: typ, Command: m.Command, Args: m.Args, Env: m.Env, URL: m.URL, Headers: m.Headers})
	}
	return out
}
