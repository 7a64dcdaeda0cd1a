package pi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// pi runs or follows project files: .pi/settings.json (its packages install
// with its own npmCommand, its shellPath runs every bash call), extensions,
// skills, prompt templates and system prompts. hub starts pi without those
// it has not trusted; pi cannot leave out only the project's settings, so
// an untrusted settings file keeps pi from starting. AGENTS.md and
// CLAUDE.md stay unless one comes through a link out of the project.
var settingsFile = filepath.Join(".pi", "settings.json")

// kinds are pi's folders of project files under .pi, each with pi's flag
// that leaves out every one it finds and the one that names one again.
var kinds = []struct{ dir, off, add string }{
	{"extensions", "--no-extensions", "-e"},
	{"skills", "--no-skills", "--skill"},
	{"prompts", "--no-prompt-templates", "--prompt-template"},
}

// systemPrompts are the project's system prompt files under .pi, each with
// pi's flag that takes its place.
var systemPrompts = [][2]string{{"SYSTEM.md", "--system-prompt"}, {"APPEND_SYSTEM.md", "--append-system-prompt"}}

// ProjectSettings are the files pi runs or follows from the project in
// cwd, for 'hub trust' to record.
func ProjectSettings(cwd string) []string {
	files := []string{filepath.Join(cwd, settingsFile)}
	for _, k := range kinds {
		files = append(files, projectFiles(cwd, k.dir)...)
	}
	for _, p := range systemPrompts {
		files = append(files, filepath.Join(cwd, ".pi", p[0]))
	}
	return config.Trustable(files)
}

// projectFiles are the files of the kind pi finds in the project in cwd:
// those under .pi/<kind>, and for skills under .agents/skills of cwd and
// its parents up to the repository root, but the home dir's (the user's).
func projectFiles(cwd, kind string) []string {
	files := config.FilesUnder(filepath.Join(cwd, ".pi", kind), "")
	home, _ := os.UserHomeDir()
	for _, d := range config.ProjectDirs(cwd) {
		if kind == "skills" && d != filepath.Clean(home) {
			files = append(files, config.FilesUnder(filepath.Join(d, ".agents", "skills"), "")...)
		}
	}
	return files
}

// SetTrustProject lets pi run the project's files hub has not trusted.
func (a *Adapter) SetTrustProject(trust bool) { a.opts.TrustProject = trust }

// trustArgs are pi's flags that leave out the project's untrusted files
// and, trusted or not, its context files when one links out of the
// project, with the notice of what was left out.
func (a *Adapter) trustArgs(so adapters.SessionOptions) (args []string, notice string, err error) {
	if !a.opts.TrustProject {
		if args, notice, err = a.untrustedArgs(so); err != nil {
			return nil, "", err
		}
	}
	if err := contextEscape(so.Cwd); err != nil {
		args = append(args, "--no-context-files")
		notice = strings.TrimPrefix(notice+". pi runs without its AGENTS.md and CLAUDE.md files: "+err.Error()+
			" (pi would send it to the model; hub sends only a regular file of the project of at most 1 MiB, through no link out of it)", ". ")
	}
	return args, notice, nil
}

// untrustedArgs are trustArgs for the project's untrusted files.
func (a *Adapter) untrustedArgs(so adapters.SessionOptions) (args []string, notice string, err error) {
	if f := filepath.Join(so.Cwd, settingsFile); config.UntrustedFile(f) {
		return nil, "", fmt.Errorf("pi would run %s, which hub has not trusted: its packages and shell settings run commands (run 'hub trust' in %s, or pass --trust-project)", f, so.Cwd)
	}
	home, _ := os.UserHomeDir()
	agentDir := cmp.Or(so.Env[agentDirEnv], a.opts.Env[agentDirEnv], os.Getenv(agentDirEnv), filepath.Join(home, ".pi", "agent"))
	var untrusted []string
	for _, k := range kinds {
		if left := slices.DeleteFunc(projectFiles(so.Cwd, k.dir), func(f string) bool { return !config.UntrustedFile(f) }); len(left) > 0 {
			untrusted, args = append(untrusted, left...), append(args, k.off)
			for _, p := range ownFiles(agentDir, home, k.dir) {
				args = append(args, k.add, p)
			}
		}
	}
	for _, p := range systemPrompts {
		if f, own := filepath.Join(so.Cwd, ".pi", p[0]), filepath.Join(agentDir, p[0]); config.UntrustedFile(f) {
			if _, err := os.Stat(own); err != nil {
				own = "" // pi's own prompt
			}
			untrusted, args = append(untrusted, f), append(args, p[1], own)
		}
	}
	if len(untrusted) > 0 {
		notice = config.LeftOut("pi", untrusted, " (and so without what your pi packages add of those kinds)", "run code as pi starts or instruct it", so.Cwd)
	}
	return args, notice, nil
}

// contextEscape says which AGENTS.md or CLAUDE.md pi would read (cwd up
// to the repository root) config.ReadContainedProjectFile refuses.
func contextEscape(cwd string) error {
	root := config.ProjectRoot(cwd)
	for _, d := range config.ProjectDirs(cwd) {
		for _, name := range []string{"AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"} {
			if _, err := os.Lstat(filepath.Join(d, name)); err == nil {
				if _, err := config.ReadContainedProjectFile(filepath.Join(d, name)); err != nil {
					return err
				}
			}
		}
		if d == root {
			break
		}
	}
	return nil
}

// ownFiles are the user's own files of the kind that pi loads, less those
// pi's settings turn off.
func ownFiles(agentDir, home, kind string) (out []string) {
	dirs := []string{filepath.Join(agentDir, kind)}
	if kind == "skills" {
		dirs = append(dirs, filepath.Join(home, ".agents", "skills"))
	}
	var found []string
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if !strings.HasPrefix(e.Name(), ".") && e.Name() != "node_modules" && loadable(kind, p) {
				found = append(found, p)
			}
		}
	}
	named, off := userEntries(agentDir, home, kind)
	for _, p := range append(found, named...) {
		rel, err := filepath.Rel(agentDir, p)
		if _, missing := os.Stat(p); err == nil && missing == nil && !off(filepath.ToSlash(rel), filepath.Base(p)) {
			out = append(out, p)
		}
	}
	return out
}

// loadable reports whether pi's discovery loads p as one of kind.
func loadable(kind, p string) bool {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return false
	case fi.IsDir() && kind == "extensions":
		return slices.ContainsFunc([]string{"index.ts", "index.js", "package.json"}, func(f string) bool {
			_, err := os.Stat(filepath.Join(p, f))
			return err == nil
		})
	case fi.IsDir():
		return kind == "skills"
	case kind == "extensions":
		return filepath.Ext(p) == ".ts" || filepath.Ext(p) == ".js"
	}
	return filepath.Ext(p) == ".md"
}

// userEntries are the paths of the kind the user's pi settings name, and
// whether they turn one off: "!glob" off, "+path" back on, "-path" off
// (paths from agentDir, with slashes).
func userEntries(agentDir, home, kind string) (named []string, off func(rel, name string) bool) {
	var s map[string]json.RawMessage
	var list []string
	if b, err := config.ReadProjectFile(filepath.Join(agentDir, "settings.json")); err == nil && json.Unmarshal(b, &s) == nil {
		_ = json.Unmarshal(s[kind], &list)
	}
	for _, p := range list {
		if p = strings.TrimSpace(p); p != "" && !strings.ContainsAny(p[:1], "!+-") && !strings.ContainsAny(p, "*?") {
			if t, ok := strings.CutPrefix(p, "~"); ok {
				p = filepath.Join(home, t)
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(agentDir, p)
			}
			named = append(named, p)
		}
	}
	return named, func(rel, name string) bool {
		is := func(sign string, match func(p string) bool) bool {
			return slices.ContainsFunc(list, func(p string) bool { q, ok := strings.CutPrefix(p, sign); return ok && match(q) })
		}
		exact := func(p string) bool { return strings.TrimPrefix(filepath.ToSlash(p), "./") == rel }
		glob := func(p string) bool {
			ok1, _ := doublestar.Match(p, rel)
			ok2, _ := doublestar.Match(p, name)
			return ok1 || ok2
		}
		return is("-", exact) || is("!", glob) && !is("+", exact)
	}
}

// agentDirEnv is pi's own folder (settings, extensions), ~/.pi/agent unset.
const agentDirEnv = "PI_CODING_AGENT_DIR"
