// Package agentspec is how an agent describes its CLI to hub: where it is installed
// from, where it keeps its config and login, how to tell whether it is signed in, how to
// log in and out. `hub doctor` (detect) and `hub login` read each agent's Spec; it sits
// below the agents so they need not import the doctor.
package agentspec

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/hubdev/hub/internal/config"
)

// Env reads one variable of the probed environment.
type Env func(string) string

// Spec is what hub knows about one agent CLI outside its sessions.
type Spec struct {
	Name, Bin, Package string
	// Tested is the version range hub supports (">=2.1.0 <3.0.0"); Verified the exact
	// release the adapter was tested with.
	Tested, Verified string
	ConfigDir        func(env Env, home string) string
	SkillsDir        func(cfgDir, home string) string
	AuthFiles        func(cfgDir, home string) []string // whose change invalidates the cache
	// Auth decides the login state; the strings are warnings.
	Auth     func(env Env, cfgDir, home string) (Auth, []string)
	LoginFix string
	// Login and Logout are the arguments of the agent's own login and logout after its
	// command (`claude auth login`); nil when it has none. An empty Login runs the agent
	// bare, for CLIs that ask how to sign in when they start.
	Login, Logout []string
	EnvVars       []string // the variables whose value changes the report
	// Catalog marks a catalogued ACP agent (adapters/catalog): it is reported only when
	// its program is found (or with Options.All), and only PATH and the package managers'
	// dirs are searched, so an absent one costs no process. ACPArgs make Bin speak ACP;
	// Env is set when it runs.
	Catalog bool
	ACPArgs []string
	Install string
	Env     map[string]string
}

// Auth states.
const (
	AuthLoggedIn     = "logged_in"    // a login of unknown billing kind
	AuthAPIKey       = "api_key"      // an API key or token (pay per use)
	AuthSubscription = "subscription" // an account login (e.g. Claude Pro, ChatGPT, Google)
	AuthNone         = "none"
	AuthUnknown      = "unknown"
	AuthNotRequired  = "not_required"
)

// ACPConfig is what a catalogued agent runs with: its ACP command line and Env under the
// user's [agents.NAME] overrides.
func (s Spec) ACPConfig(user config.AgentConfig) config.AgentConfig {
	return user.Over(config.AgentConfig{Command: config.Command{s.Bin}, Args: s.ACPArgs, Env: s.Env})
}

// Auth says how the agent would authenticate.
type Auth struct {
	State  string `json:"state"`
	Source string `json:"source,omitempty"` // the env var or file that decides the state
	Reason string `json:"reason,omitempty"` // why the state is unknown, in one line
}

// DirFrom is envVar's value, else def under home.
func DirFrom(envVar, def string) func(Env, string) string {
	return func(env Env, home string) string { return cmp.Or(env(envVar), filepath.Join(home, def)) }
}

// Sub is the directory name under the agent's config directory.
func Sub(name string) func(string, string) string {
	return func(cfgDir, _ string) string { return filepath.Join(cfgDir, name) }
}

func FileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// ReadJSON reads a JSON object file; nil when missing or not an object.
func ReadJSON(p string) map[string]any {
	data, _ := os.ReadFile(p)
	var m map[string]any
	_ = json.Unmarshal(data, &m) // leaves m nil unless data is an object
	return m
}
