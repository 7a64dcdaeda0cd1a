package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A project config file comes with the repository, so whoever wrote the
// repository wrote it. Until the user trusts it (`hub trust`), hub ignores
// its keys that run code or widen authority, and keeps the harmless ones
// (model, narrowing modes, deny rules, log level, [acp] tuning); hooks run
// commands, so they are dropped. Trust is
// recorded per file with a hash of its bytes: a changed file is untrusted
// again. The user's own config is always trusted.

// Ignored is one key hub ignored from an untrusted project file.
type Ignored struct {
	File string `json:"file"`
	Key  string `json:"key"`
}

// TrustPath is the trust store: absolute file path -> sha256 of its bytes.
func TrustPath() string { return filepath.Join(StateDir(), "trust.json") }

func loadTrust() map[string]string {
	m := map[string]string{}
	if b, err := os.ReadFile(TrustPath()); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

func fileHash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// IsTrusted reports whether the project file at path, with these bytes,
// was trusted by the user.
func IsTrusted(path string, data []byte) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return loadTrust()[abs] == fileHash(data)
}

// ProjectFiles are the project config files that apply in dir, outermost
// first.
func ProjectFiles(dir string) []string {
	var out []string
	dirs := ProjectDirs(dir)
	for i := len(dirs) - 1; i >= 0; i-- {
		if p := ProjectPath(dirs[i]); fileExists(p) {
			out = append(out, p)
		}
	}
	return out
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Trust records the project config files that apply in dir, as they are
// now, and returns them.
func Trust(dir string) ([]string, error) {
	files := ProjectFiles(dir)
	m := loadTrust()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("trust %s: %w", f, err)
		}
		m[f] = fileHash(data)
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.MkdirAll(filepath.Dir(TrustPath()), 0o700); err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	tmp := TrustPath() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	return files, os.Rename(tmp, TrustPath())
}

// narrowingModes are the modes an untrusted file may set: they ask more,
// never less.
var narrowingModes = map[string]bool{"": true, "default": true, "plan": true, "read-only": true}

// restrict drops what an untrusted file may not set from f, recording each
// key, and returns the names of the agents it defined with a command.
func (f *Config) restrict(path string) (ignored []Ignored, agents map[string]bool) {
	agents = map[string]bool{}
	drop := func(key string) { ignored = append(ignored, Ignored{File: path, Key: key}) }
	for _, name := range f.AgentNames() {
		a := f.Agents[name]
		if len(a.Command) > 0 || a.Protocol != "" {
			agents[name] = true
		}
		for key, set := range map[string]bool{"command": len(a.Command) > 0, "args": len(a.Args) > 0, "env": len(a.Env) > 0,
			"protocol": a.Protocol != "", "type": a.Type != "", "script": a.Script != "", "options": len(a.Options) > 0,
			"mode": !narrowingModes[a.Mode]} {
			if set {
				drop("agents." + name + "." + key)
			}
		}
		if !narrowingModes[a.Mode] {
			a.Mode = ""
		}
		f.Agents[name] = AgentConfig{Model: a.Model, Mode: a.Mode, Disabled: a.Disabled}
	}
	for name, p := range f.Providers {
		for key, set := range map[string]bool{"base_url": p.BaseURL != "", "headers": len(p.Headers) > 0, "api_key_env": p.APIKeyEnv != ""} {
			if set {
				drop("providers." + name + "." + key)
			}
		}
		p.BaseURL, p.Headers, p.APIKeyEnv = "", nil, ""
		f.Providers[name] = p
	}
	if _, defined := f.Agents[f.DefaultAgent]; (defined && agents[f.DefaultAgent]) || f.Providers[f.DefaultAgent].Preset != "" || isProvider(f, f.DefaultAgent) {
		drop("default_agent")
		f.DefaultAgent = ""
	}
	var kept []PermissionRule
	for i, r := range f.Permissions.Rules {
		if strings.EqualFold(strings.TrimSpace(r.Decision), "deny") {
			kept = append(kept, r)
			continue
		}
		drop(fmt.Sprintf("permissions.rules[%d] (%s)", i, r.Decision))
	}
	f.Permissions.Rules = kept
	if f.ACP.Delegation != nil || f.ACP.DelegationDepth > 0 {
		drop("acp.delegation")
		f.ACP.Delegation, f.ACP.DelegationDepth = nil, 0
	}
	for name := range f.MCPServers {
		drop("mcp_servers." + name)
	}
	f.MCPServers = nil
	for ev, hs := range f.Hooks {
		for i := range hs {
			drop(fmt.Sprintf("hooks.%s[%d]", ev, i))
		}
	}
	f.Hooks = nil
	if g := f.Permissions.Grants; g != "" && f.Permissions.GrantScope() != GrantsSession {
		drop("permissions.grants (" + g + ")")
		f.Permissions.Grants = ""
	}
	if f.Permissions.GrantDays != 0 {
		drop("permissions.grant_days")
		f.Permissions.GrantDays = 0
	}
	if f.Log.File != "" {
		drop("log.file")
		f.Log.File = ""
	}
	sort.Slice(ignored, func(i, j int) bool { return ignored[i].Key < ignored[j].Key })
	return ignored, agents
}

func isProvider(f *Config, name string) bool {
	_, ok := f.Providers[name]
	return ok && name != ""
}

// narrowSandbox takes from an untrusted file the [sandbox] settings that
// confine more than the ones so far (a stricter mode, network = false) and
// drops the others, recording each.
func (c *Config) narrowSandbox(f *Config, path string) {
	drop := func(key string) {
		c.Ignored = append(c.Ignored, Ignored{File: path, Key: key})
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s ignored: the project config is not trusted and may only narrow the sandbox (run 'hub trust' in %s)",
			path, key, filepath.Dir(filepath.Dir(path))))
	}
	if f.Sandbox.Mode != "" {
		if m := f.Sandbox.Policy().Mode; m.Stricter(c.Sandbox.Policy().Mode) || m == c.Sandbox.Policy().Mode {
			c.Sandbox.Mode = f.Sandbox.Mode
		} else {
			drop("sandbox.mode (" + f.Sandbox.Mode + ")")
		}
	}
	if n := f.Sandbox.Network; n != nil {
		if !*n {
			c.Sandbox.Network = n
		} else if !c.Sandbox.Policy().Network {
			drop("sandbox.network")
		}
	}
	f.Sandbox = SandboxConfig{}
}
