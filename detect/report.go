// Package detect answers "can hub run this agent here, and if not, why?"
// (hub doctor). It also looks through a login shell, for nvm/fnm/volta
// installs a GUI editor cannot see; probes run in parallel, each under its
// own timeout, and never run interactive commands.
package detect

import (
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/agentspec"
)

// SchemaVersion is Report.Schema; it changes only on incompatible edits.
const SchemaVersion = 1

// Report is what `hub doctor --json` prints, Agents sorted by name. Fields
// may be added; none is removed or retyped without a SchemaVersion bump.
type Report struct {
	Schema      int       `json:"schema"`
	GeneratedAt time.Time `json:"generatedAt"`
	Cached      bool      `json:"cached"`
	Agents      []Agent   `json:"agents"`
	// NativeSandbox is e.g. "workspace-write, network off (/usr/bin/bwrap)"
	// or "not sandboxed: …"; never cached, absent without a native agent.
	NativeSandbox string `json:"nativeSandbox,omitempty"`
	// Personas are never cached.
	Personas []Persona `json:"personas,omitempty"`
}

// Persona is the verdict on one persona file.
type Persona struct {
	// Name is "" for a file that is not used (State "not used").
	Name    string `json:"name,omitempty"`
	File    string `json:"file"`
	Backend string `json:"backend,omitempty"`
	// State is personas.Adapter.Verdict's, or "not used" (it does not
	// parse, or another file has its name).
	State    string   `json:"state"`
	Problems []string `json:"problems,omitempty"`
}

// Agent is the verdict for one agent.
type Agent struct {
	Name string `json:"name"`
	// Kind is "cli", "acp" (catalogued, or [agents.NAME] protocol = "acp")
	// or "native" (an OpenAI-compatible provider profile).
	Kind string `json:"kind"`
	// Catalog marks an agent of hub's built-in catalogue of ACP agents.
	Catalog bool `json:"catalog,omitempty"`
	// Ready is true when hub can start the agent now; `hub doctor --agent
	// NAME` exits 1 when it is false.
	Ready     bool   `json:"ready"`
	Installed bool   `json:"installed"`
	Path      string `json:"path,omitempty"`
	// FoundVia is "path", "known-dir" (a package manager's install dir off
	// PATH), "login-shell" or "config" (an explicit command).
	FoundVia string `json:"foundVia,omitempty"`
	Version  string `json:"version,omitempty"`
	// VersionFrom is "package.json" (the binary's npm package) or "--version".
	VersionFrom string `json:"versionFrom,omitempty"`
	// TestedRange is the range hub supports, e.g. ">=2.1.0 <3.0.0";
	// TestedVersion the exact release the adapter was tested with.
	TestedRange   string `json:"testedRange,omitempty"`
	TestedVersion string `json:"testedVersion,omitempty"`
	// VersionStatus is "ok", "too_old" (below TestedRange: not ready),
	// "newer_than_tested" (above it: ready, with a warning), "unknown" or
	// "timeout" (`--version` did not answer: not ready).
	VersionStatus string                 `json:"versionStatus,omitempty"`
	ConfigDir     string                 `json:"configDir,omitempty"`
	SkillsDir     string                 `json:"skillsDir,omitempty"`
	Auth          agentspec.Auth         `json:"auth"`
	Endpoint      *Endpoint              `json:"endpoint,omitempty"`
	Capabilities  *adapters.Capabilities `json:"capabilities,omitempty"`
	// Warnings are things that work but may surprise (billing, PATH).
	Warnings []string `json:"warnings,omitempty"`
	// Fix is one command or step that resolves the main problem.
	Fix        string `json:"fix,omitempty"`
	DurationMs int64  `json:"durationMs"`
}

// Endpoint describes a native provider profile.
type Endpoint struct {
	BaseURL string `json:"baseUrl"`
	Model   string `json:"model,omitempty"`
	KeyEnv  string `json:"keyEnv,omitempty"`
	KeySet  bool   `json:"keySet"`
	// Preset is the shipped adapters/openai preset the profile starts from.
	Preset string `json:"preset,omitempty"`
	// Configured is true for a [providers.NAME] profile (or
	// [providers.openai]); false for a shipped preset or env-only "openai".
	Configured bool `json:"configured"`
	// Local servers need no API key.
	Local bool `json:"local,omitempty"`
	// Probed: --probe asked GET {baseUrl}/models.
	Probed    bool   `json:"probed"`
	Reachable bool   `json:"reachable"`
	Status    string `json:"status,omitempty"` // HTTP status or error
}
