package config

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hubdev/hub/internal/safefile"
)

// A project config file comes with the repository, so whoever wrote the
// repository wrote it. Until the user trusts it (`hub trust`), hub ignores
// its keys that run code or widen authority, and keeps the harmless ones
// (model, narrowing modes, deny rules, a louder log level, [acp] tuning); hooks run
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

// maxTrustStore caps the trust store's size.
const maxTrustStore = 16 << 20

func loadTrust() map[string]string {
	m := map[string]string{}
	if b, err := safefile.Read(TrustPath(), maxTrustStore); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

func fileHash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// IsTrusted reports whether the project file at path, with these bytes,
// was trusted by the user; a SKILL.md with every other file of its
// folder as it is now (SkillChange).
func IsTrusted(path string, data []byte) bool {
	store := loadTrust()
	return trusted(store, path, data) && skillChange(store, path) == nil
}

// SkillChange says which file of the folder of the SKILL.md at path the
// user has not trusted as it is now (a script changed or added since
// 'hub trust', a link to a folder, too many files); nil when none is,
// and for another file.
func SkillChange(path string) error { return skillChange(loadTrust(), path) }

func skillChange(store map[string]string, path string) error {
	files, err := skillFolder(path)
	for _, f := range files {
		if err != nil {
			break
		}
		if data, e := ReadProjectFile(f); e != nil || !trusted(store, f, data) {
			err = cmp.Or(e, fmt.Errorf("%s is new or changed since 'hub trust'", f))
		}
	}
	return err
}

// skillFolder are the files of the folder of the SKILL.md at path besides
// it (none for another file), at most maxSkillFiles: a skill's scripts run
// when it is used, so its trust covers them. A link in it is listed, not
// followed into a folder.
func skillFolder(path string) ([]string, error) {
	if filepath.Base(path) != "SKILL.md" {
		return nil, nil
	}
	dir := filepath.Dir(path)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, nil // no folder: the SKILL.md is missing too
	}
	var out []string
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(real, p)
		switch p = filepath.Join(dir, rel); {
		case err != nil:
			return err
		case d.IsDir() || p == filepath.Join(dir, "SKILL.md"):
			return nil
		case len(out) == maxSkillFiles:
			return fmt.Errorf("%s holds more than %d files, more than 'hub trust' records", dir, maxSkillFiles)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// maxSkillFiles caps the files of a skill folder 'hub trust' records.
const maxSkillFiles = 256

// trusted reports whether store holds the file at path with these bytes.
func trusted(store map[string]string, path string, data []byte) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	sum := fileHash(data)
	if store[abs] == sum {
		return true
	}
	// A linked worktree (hub run --agents makes one per candidate) holds
	// the repository's files: trusted in the main worktree with these
	// bytes, a file is trusted there too.
	root := ProjectRoot(filepath.Dir(abs))
	main, ok := mainWorktree(root)
	rel, err := filepath.Rel(root, abs)
	return ok && err == nil && store[filepath.Join(main, rel)] == sum
}

// mainWorktree is the main worktree of the linked worktree root: its .git
// file names <main>/.git/worktrees/<name>, whose gitdir file names root's
// .git back, so a repository cannot pass for another's worktree.
func mainWorktree(root string) (string, bool) {
	b, err := safefile.Read(filepath.Join(root, ".git"), 4096)
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if err != nil || !ok || !filepath.IsAbs(gitdir) {
		return "", false
	}
	back, err := safefile.Read(filepath.Join(gitdir, "gitdir"), 4096)
	wts := filepath.Dir(gitdir)
	if err != nil || filepath.Clean(strings.TrimSpace(string(back))) != filepath.Join(root, ".git") ||
		filepath.Base(wts) != "worktrees" || filepath.Base(filepath.Dir(wts)) != ".git" {
		return "", false
	}
	return filepath.Dir(filepath.Dir(wts)), true
}

// ProjectFiles are the project config files that apply in dir, outermost
// first.
func ProjectFiles(dir string) []string {
	var out []string
	for _, d := range slices.Backward(ProjectDirs(dir)) {
		if st, err := os.Stat(ProjectPath(d)); err == nil && !st.IsDir() {
			out = append(out, ProjectPath(d))
		}
	}
	return out
}

// TrustFiles records files (project config files, skills) as they are now,
// a SKILL.md with the other files of its folder. The store is rewritten
// under its lock, re-read first, so concurrent `hub trust` runs keep each
// other's entries.
func TrustFiles(files []string) error {
	add, all := map[string]string{}, slices.Clone(files)
	for _, f := range files {
		folder, err := skillFolder(f)
		if err != nil {
			return fmt.Errorf("trust %s: %w", f, err)
		}
		all = append(all, folder...)
	}
	for _, f := range all {
		abs, err := filepath.Abs(f)
		if err != nil {
			return fmt.Errorf("trust %s: %w", f, err)
		}
		data, err := ReadProjectFile(abs)
		if err != nil {
			return fmt.Errorf("trust %s: %w", f, err)
		}
		add[abs] = fileHash(data)
	}
	if len(add) == 0 {
		return nil
	}
	err := safefile.Update(TrustPath(), maxTrustStore, 0o600, func(old []byte) ([]byte, error) {
		m := map[string]string{}
		if len(old) > 0 {
			if err := json.Unmarshal(old, &m); err != nil {
				return nil, fmt.Errorf("%s is corrupt: %w (fix it, or remove it to trust again from scratch)", TrustPath(), err)
			}
		}
		maps.Copy(m, add)
		b, err := json.MarshalIndent(m, "", "  ")
		return append(b, '\n'), err
	})
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}

// MaxProjectFile caps a file hub reads from a repository (config,
// AGENTS.md, SKILL.md): a bigger one is refused, not read.
const MaxProjectFile = 1 << 20

// ReadProjectFile reads a file a repository supplies: a regular file (a
// symlink to one is followed) of at most MaxProjectFile bytes. A device
// or FIFO is refused at once.
func ReadProjectFile(path string) ([]byte, error) { return safefile.Read(path, MaxProjectFile) }

// ReadContainedProjectFile is ReadProjectFile of a file whose text goes to
// the model unasked (AGENTS.md): a link is followed only to a file of the
// same project (its ProjectRoot), so a repository's AGENTS.md linked to
// ~/.ssh/id_rsa is refused, not read past the permission gate. The file
// the links name is opened under the project through no link, so a
// folder swapped for a link after the check is refused, not followed.
func ReadContainedProjectFile(path string) ([]byte, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(ProjectRoot(filepath.Dir(path)))
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s: %w to %s, outside the project %s", path, safefile.ErrLinked, real, root)
	}
	return safefile.ReadIn(root, filepath.ToSlash(rel), MaxProjectFile)
}

// modeRank orders modes by what the agent may do unasked: plan and
// read-only change nothing, default asks, anything else asks less.
func modeRank(mode string) int {
	if rank, ok := map[string]int{"read-only": 0, "plan": 0, "default": 1}[mode]; ok {
		return rank
	}
	return 2
}

// Narrows says whether mode may replace cur where only the user may widen
// (an untrusted file's mode, a delegating agent's): the same mode, or one
// that lets the agent do strictly less.
func Narrows(mode, cur string) bool {
	mode, cur = cmp.Or(mode, "default"), cmp.Or(cur, "default")
	return mode == cur || modeRank(mode) < modeRank(cur)
}

// drop records a key of an untrusted file at path that hub ignored, and
// why when there is more to it than the file not being trusted.
func (c *Config) drop(path, key, why string) {
	if why != "" {
		why = " and " + why
	}
	c.Ignored = append(c.Ignored, Ignored{File: path, Key: key})
	c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s ignored: the project config is not trusted%s (run 'hub trust' in %s)",
		path, key, why, filepath.Dir(filepath.Dir(path))))
}

// narrowAgents drops from an untrusted file the agent modes that would not
// narrow the mode set so far (the user's own), and the provider presets
// that would re-point an endpoint, recording each. Of a profile an earlier
// file set, it keeps only the model.
func (c *Config) narrowAgents(f *Config, path string) {
	for _, name := range f.AgentNames() {
		a := f.Agents[name]
		if cur := c.Agents[name].Mode; a.Mode != "" && !Narrows(a.Mode, cur) {
			c.drop(path, fmt.Sprintf("agents.%s.mode (%s)", name, a.Mode), fmt.Sprintf("may only narrow your mode %q", cmp.Or(cur, "default")))
			a.Mode = ""
			f.Agents[name] = a
		}
	}
	for _, name := range slices.Sorted(maps.Keys(f.Providers)) {
		p := f.Providers[name]
		cur, ok := c.Providers[name]
		if p.Preset != "" && !(ok && p.Preset == cur.Preset) && !(cur.Preset == "" && p.Preset == name) {
			c.drop(path, fmt.Sprintf("providers.%s.preset (%s)", name, p.Preset), "may not change an endpoint")
			p.Preset = ""
		}
		if ok {
			p = ProviderConfig{Model: p.Model}
		}
		f.Providers[name] = p
	}
}

// restrict drops what the untrusted file f at path may not set, recording
// each key in order, the agents it defines with a command, and the
// default_agent it names when that is one of them or of its providers.
func (c *Config) restrict(f *Config, path string) {
	set := map[string]bool{}
	for name, a := range f.Agents {
		if len(a.Command) > 0 || a.Protocol != "" {
			c.UntrustedAgents[name] = path
		}
		// An untrusted file may set only the modes that ask (default) or do
		// nothing; against the user's own mode they may only narrow (narrows).
		wide := a.Mode != "" && modeRank(a.Mode) > 1
		for key, on := range map[string]bool{"command": len(a.Command) > 0, "args": len(a.Args) > 0, "env": len(a.Env) > 0,
			"protocol": a.Protocol != "", "type": a.Type != "", "script": a.Script != "", "options": len(a.Options) > 0, "mode": wide} {
			set["agents."+name+"."+key] = on
		}
		if wide {
			a.Mode = ""
		}
		f.Agents[name] = AgentConfig{Model: a.Model, Mode: a.Mode, Disabled: a.Disabled}
	}
	for name, p := range f.Providers {
		for key, on := range map[string]bool{"base_url": p.BaseURL != "", "headers": len(p.Headers) > 0, "api_key_env": p.APIKeyEnv != ""} {
			set["providers."+name+"."+key] = on
		}
		p.BaseURL, p.Headers, p.APIKeyEnv = "", nil, ""
		f.Providers[name] = p
	}
	if _, provider := f.Providers[f.DefaultAgent]; f.DefaultAgent != "" && (c.UntrustedAgents[f.DefaultAgent] == path || provider) {
		set["default_agent"] = true
		c.UntrustedDefault, f.DefaultAgent = f.DefaultAgent, ""
	}
	var kept []PermissionRule
	for i, r := range f.Permissions.Rules {
		deny := strings.EqualFold(strings.TrimSpace(r.Decision), "deny")
		set[fmt.Sprintf("permissions.rules[%d] (%s)", i, r.Decision)] = !deny
		if deny {
			kept = append(kept, r)
		}
	}
	for name := range f.MCPServers {
		set["mcp_servers."+name] = true
	}
	for ev, hs := range f.Hooks {
		for i := range hs {
			set[fmt.Sprintf("hooks.%s[%d]", ev, i)] = true
		}
	}
	p := &f.Permissions
	set["acp.delegation"] = f.ACP.Delegation != nil || f.ACP.DelegationDepth > 0
	set["permissions.grants ("+p.Grants+")"] = p.Grants != "" && p.GrantScope() != GrantsSession
	set["permissions.grant_days"], set["log.file"] = p.GrantDays != 0, f.Log.File != ""
	// Neither may hide what hub does here: the audit transcripts, or these
	// warnings behind a level quieter than warn.
	quiet := !slices.Contains([]string{"", "trace", "debug", "info", "warn"}, strings.ToLower(strings.TrimSpace(f.Log.Level)))
	set["transcripts (false)"], set["log.level ("+f.Log.Level+")"] = f.Transcripts != nil && !*f.Transcripts, quiet
	if quiet {
		f.Log.Level = ""
	}
	if set["transcripts (false)"] {
		f.Transcripts = nil
	}
	if p.GrantScope() != GrantsSession {
		p.Grants = ""
	}
	p.Rules, p.GrantDays, f.Log.File, f.MCPServers, f.Hooks, f.ACP.Delegation, f.ACP.DelegationDepth = kept, 0, "", nil, nil, nil, 0
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if set[k] {
			c.drop(path, k, "")
		}
	}
}

// narrowSandbox keeps of an untrusted file's [sandbox] the settings that
// confine at least as much as the ones so far (a mode as strict or
// stricter, network = false) and drops the others, recording each that
// would widen it.
func (c *Config) narrowSandbox(f *Config, path string) {
	s, cur := &f.Sandbox, c.Sandbox.Policy()
	if m := s.Policy().Mode; s.Mode != "" && !m.Stricter(cur.Mode) && m != cur.Mode {
		c.drop(path, "sandbox.mode ("+s.Mode+")", "may only narrow the sandbox")
		s.Mode = ""
	}
	if s.Network != nil && *s.Network {
		if !cur.Network {
			c.drop(path, "sandbox.network", "may only narrow the sandbox")
		}
		s.Network = nil
	}
}

// Untrusted reports why agent cannot run: an untrusted project file
// defines it, or (fromDefault: no agent was named) made it the default.
func (c *Config) Untrusted(agent string, fromDefault bool) error {
	if file, ok := c.UntrustedAgents[agent]; ok {
		return fmt.Errorf("untrusted project config %s defines agent %q: run 'hub trust' in %s (or pass --trust-project) to let it run",
			file, agent, filepath.Dir(filepath.Dir(file)))
	}
	if fromDefault && c.UntrustedDefault != "" {
		return fmt.Errorf("untrusted project config sets default_agent %q: run 'hub trust' (or pass --trust-project, or --agent)", c.UntrustedDefault)
	}
	return nil
}

// UntrustedNotice tells an editor session which project keys hub ignored,
// one sentence per file; "" when none.
func (c *Config) UntrustedNotice() string {
	files := map[string][]string{}
	var order []string
	for _, ig := range c.Ignored {
		if files[ig.File] == nil {
			order = append(order, ig.File)
		}
		files[ig.File] = append(files[ig.File], ig.Key)
	}
	var b strings.Builder
	for _, f := range order {
		fmt.Fprintf(&b, "hub ignored %s from the untrusted project config %s; run 'hub trust' in %s to use them.\n",
			strings.Join(files[f], ", "), f, filepath.Dir(filepath.Dir(f)))
	}
	return strings.TrimSpace(b.String())
}
