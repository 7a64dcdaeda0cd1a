package detect

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Env reads one variable of the probed environment.
type Env func(string) string

// Spec is what hub knows about one agent CLI for `hub doctor`. Each agent
// declares its own (adapters/<agent>/doctor.go) and the doctor receives
// them in Options.Specs.
type Spec struct {
	Name, Bin, Package string
	// Tested is the version range hub supports (">=2.1.0 <3.0.0");
	// Verified the exact release the adapter was tested with.
	Tested, Verified string
	ConfigDir        func(env Env, home string) string
	SkillsDir        func(cfgDir, home string) string
	// AuthFiles are the files whose change invalidates the cache.
	AuthFiles func(cfgDir, home string) []string
	// Auth decides the login state; the strings are warnings.
	Auth     func(env Env, cfgDir, home string) (Auth, []string)
	LoginFix string
	// Login and Logout are the arguments of the agent's own login and
	// logout, after its command (`claude auth login`); nil when it has
	// none. An empty Login runs the agent bare, for CLIs that ask how to
	// sign in when they start.
	Login, Logout []string
	// EnvVars are the variables whose value changes the report.
	EnvVars []string
	// Catalog marks a catalogued ACP agent (adapters/catalog): it is
	// reported only when its program is found (or with Options.All), and
	// only PATH and the package managers' dirs are searched, so an absent
	// one costs no process. ACPArgs make Bin speak ACP; Install says how
	// to install it; Env is set when it runs.
	Catalog bool
	ACPArgs []string
	Install string
	Env     map[string]string
}

// DirFrom is envVar's value, else def under home.
func DirFrom(envVar, def string) func(Env, string) string {
	return func(env Env, home string) string {
		if v := env(envVar); v != "" {
			return v
		}
		return filepath.Join(home, def)
	}
}

// Sub is the directory name under the agent's config directory.
func Sub(name string) func(string, string) string {
	return func(cfgDir, _ string) string { return filepath.Join(cfgDir, name) }
}

// FileExists reports whether p exists.
func FileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// ReadJSON reads a JSON object file; nil when missing or not an object.
func ReadJSON(p string) map[string]any {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// baseEnv are the variables every report depends on.
var baseEnv = []string{"PATH", "PATHEXT", "SHELL", "HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "SCOOP", "OPENAI_API_KEY", "OPENAI_BASE_URL"}
