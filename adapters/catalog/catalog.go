// Package catalog is hub's built-in list of ACP agents (agents.json). An entry whose
// program is installed is an agent everywhere (registry, doctor, hub run) with no
// configuration; [agents.NAME] overrides an entry field by field.
package catalog

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters/agentspec"
)

//go:embed agents.json
var data []byte

// Entry is one catalogued ACP agent. Never guess a flag: an agent whose ACP entry point
// could not be confirmed stays out and is listed in the README as not supported yet.
type Entry struct {
	Name  string   `json:"name"`  // registry name (--agent NAME; [agents.NAME] overrides it)
	Title string   `json:"title"` // what the agent calls itself
	Bin   string   `json:"bin"`   // the program an install puts on PATH
	Args  []string `json:"args"`  // make Bin speak ACP on stdio
	// NPM is its npm package, when it ships as one; hub runs the installed binary, never
	// npx. Install says how to install it otherwise.
	NPM       string            `json:"npm"`
	Install   string            `json:"install"`
	Env       map[string]string `json:"env"`        // set when hub starts it
	ConfigDir string            `json:"config_dir"` // "~" is the home directory
	ConfigEnv string            `json:"config_env"` // a variable that moves ConfigDir
	// AuthEnv are variables that authenticate it; AuthFiles the files a login writes
	// ($XDG_DATA_HOME and $XDG_CONFIG_HOME fall back to ~/.local/share and ~/.config).
	// AuthRequired says it cannot work without one of them.
	AuthEnv      []string `json:"auth_env"`
	AuthFiles    []string `json:"auth_files"`
	AuthRequired bool     `json:"auth_required"`
	// Login are the arguments of its own login after Bin; nil when hub knows none, empty
	// when running it bare asks how to sign in.
	Login  []string `json:"login"`
	Source string   `json:"source"` // where the ACP entry point (and login) was confirmed
}

var load = sync.OnceValues(func() ([]Entry, error) { return parse(data) })

// Entries returns the catalogue in file order. The file is part of the binary, so an
// error is a build defect the tests catch.
func Entries() []Entry {
	entries, err := load()
	if err != nil {
		panic(err)
	}
	return entries
}

func Lookup(name string) (Entry, bool) {
	entries := Entries()
	if i := slices.IndexFunc(entries, func(e Entry) bool { return e.Name == name }); i >= 0 {
		return entries[i], true
	}
	return Entry{}, false
}

func parse(b []byte) ([]Entry, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var out []Entry
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("catalog: agents.json: %w", err)
	}
	return out, nil
}

func (e Entry) InstallHint() string {
	return cmp.Or(e.Install, "npm install -g "+e.NPM)
}

// LoginFix says how to log in, for doctor and authentication errors.
func (e Entry) LoginFix() string {
	switch {
	case e.Login == nil && len(e.AuthEnv) > 0:
		return fmt.Sprintf("run `%s` and sign in, or set %s", e.Bin, e.AuthEnv[0])
	case e.Login == nil:
		return fmt.Sprintf("run `%s` and sign in", e.Bin)
	case len(e.Login) == 0:
		return fmt.Sprintf("run `%s` and choose how to sign in", e.Bin)
	}
	return fmt.Sprintf("run `%s`", strings.Join(append([]string{e.Bin}, e.Login...), " "))
}

func (e Entry) Spec() agentspec.Spec {
	return agentspec.Spec{
		Name: e.Name, Bin: e.Bin, Package: e.NPM, ACPArgs: e.Args, Install: e.InstallHint(), Catalog: true, Env: e.Env,
		ConfigDir: e.configDir,
		SkillsDir: func(string, string) string { return "" },
		AuthFiles: func(_, home string) []string { return e.authFiles(func(string) string { return "" }, home) },
		Auth:      e.auth,
		LoginFix:  e.LoginFix(),
		Login:     e.Login,
		EnvVars:   append(append([]string{}, e.AuthEnv...), e.ConfigEnv, "XDG_DATA_HOME", "XDG_CONFIG_HOME"),
	}
}

func Specs() []agentspec.Spec {
	var out []agentspec.Spec
	for _, e := range Entries() {
		out = append(out, e.Spec())
	}
	return out
}

func (e Entry) configDir(env agentspec.Env, home string) string {
	if e.ConfigEnv != "" && env(e.ConfigEnv) != "" {
		return env(e.ConfigEnv)
	}
	return expand(e.ConfigDir, env, home) // "" stays ""
}

func (e Entry) authFiles(env agentspec.Env, home string) []string {
	out := make([]string, len(e.AuthFiles))
	for i, f := range e.AuthFiles {
		out[i] = expand(f, env, home)
	}
	return out
}

// auth is what files and environment tell: a key or token, a login file, nothing where
// the agent needs one, else unknown (the agent says so when a session starts).
func (e Entry) auth(env agentspec.Env, _, home string) (agentspec.Auth, []string) {
	for _, k := range e.AuthEnv {
		if env(k) != "" {
			return agentspec.Auth{State: agentspec.AuthAPIKey, Source: k}, nil
		}
	}
	for _, f := range e.authFiles(env, home) {
		if agentspec.FileExists(f) {
			return agentspec.Auth{State: agentspec.AuthLoggedIn, Source: f}, nil
		}
	}
	if e.AuthRequired {
		return agentspec.Auth{State: agentspec.AuthNone}, nil
	}
	return agentspec.Auth{State: agentspec.AuthUnknown, Reason: "asked at session start"}, nil
}

var xdg = regexp.MustCompile(`^\$(XDG_DATA_HOME|XDG_CONFIG_HOME)`)

// expand resolves a leading ~ or $XDG_DATA_HOME / $XDG_CONFIG_HOME.
func expand(p string, env agentspec.Env, home string) string {
	if m := xdg.FindStringSubmatch(p); m != nil {
		base := cmp.Or(env(m[1]), filepath.Join(home, map[string]string{"XDG_DATA_HOME": ".local/share", "XDG_CONFIG_HOME": ".config"}[m[1]]))
		return filepath.Join(base, filepath.FromSlash(strings.TrimPrefix(p, m[0])))
	}
	if rest, ok := strings.CutPrefix(p, "~"); ok {
		return filepath.Join(home, filepath.FromSlash(rest))
	}
	return p
}
