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

// pi reads from its session directory (not its parents) files that run
// code at start: .pi/settings.json, whose packages it installs with the
// file's own npmCommand and whose shellPath and shellCommandPrefix run
// with every bash call, and the extensions under .pi/extensions, which it
// loads. hub starts pi without the extensions it has not trusted; pi has
// no switch to leave out only the project's settings, so an untrusted
// .pi/settings.json keeps pi from starting.
var (
	settingsFile  = filepath.Join(".pi", "settings.json")
	extensionsDir = filepath.Join(".pi", "extensions")
)

// ProjectSettings are the files pi runs from the project in cwd, for
// 'hub trust' to record.
func ProjectSettings(cwd string) []string {
	return config.Trustable(append(config.FilesUnder(filepath.Join(cwd, extensionsDir), ""), filepath.Join(cwd, settingsFile)))
}

// SetTrustProject lets pi run the project's files hub has not trusted
// (--trust-project).
func (a *Adapter) SetTrustProject(trust bool) { a.opts.TrustProject = trust }

// trustArgs are pi's flags that leave out the project's untrusted
// extensions (--no-extensions, then the user's own again with -e), and
// the notice of what was left out; an untrusted settings file is an error.
func (a *Adapter) trustArgs(so adapters.SessionOptions) (args []string, notice string, err error) {
	if a.opts.TrustProject {
		return nil, "", nil
	}
	if f := filepath.Join(so.Cwd, settingsFile); config.UntrustedFile(f) {
		return nil, "", fmt.Errorf("pi would run %s, which hub has not trusted: its packages and shell settings run commands (run 'hub trust' in %s, or pass --trust-project)", f, so.Cwd)
	}
	untrusted := slices.DeleteFunc(config.FilesUnder(filepath.Join(so.Cwd, extensionsDir), ""), func(f string) bool { return !config.UntrustedFile(f) })
	if len(untrusted) == 0 {
		return nil, "", nil
	}
	args = []string{"--no-extensions"}
	home, _ := os.UserHomeDir()
	agentDir := cmp.Or(so.Env[agentDirEnv], a.opts.Env[agentDirEnv], os.Getenv(agentDirEnv), filepath.Join(home, ".pi", "agent"))
	entries, _ := os.ReadDir(filepath.Join(agentDir, "extensions"))
	var own []string
	for _, e := range entries {
		p := filepath.Join(agentDir, "extensions", e.Name())
		if !strings.HasPrefix(e.Name(), ".") && e.Name() != "node_modules" && loadable(p) {
			own = append(own, p)
		}
	}
	named, off := userExtensions(agentDir, home)
	for _, p := range append(own, named...) {
		rel, err := filepath.Rel(agentDir, p)
		if _, missing := os.Stat(p); err == nil && missing == nil && !off(filepath.ToSlash(rel), filepath.Base(p)) {
			args = append(args, "-e", p)
		}
	}
	return args, config.LeftOut("pi", untrusted, " (and so without the extensions of pi packages)", "run code as pi starts", so.Cwd), nil
}

// loadable reports whether pi's discovery loads p as an extension: a .ts
// or .js file, or a folder with an index or a package.json.
func loadable(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return err == nil && (filepath.Ext(p) == ".ts" || filepath.Ext(p) == ".js")
	}
	return slices.ContainsFunc([]string{"index.ts", "index.js", "package.json"}, func(f string) bool {
		_, err := os.Stat(filepath.Join(p, f))
		return err == nil
	})
}

// userExtensions are the extension paths the user's pi settings name (from
// agentDir, or ~), and whether the user turned an extension of theirs off
// there, as pi reads its "extensions" list: "!glob" off, "+path" back on,
// "-path" off (paths from agentDir, with slashes).
func userExtensions(agentDir, home string) (named []string, off func(rel, name string) bool) {
	var s struct{ Extensions []string }
	if b, err := config.ReadProjectFile(filepath.Join(agentDir, "settings.json")); err == nil {
		_ = json.Unmarshal(b, &s)
	}
	for _, p := range s.Extensions {
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
			return slices.ContainsFunc(s.Extensions, func(p string) bool { q, ok := strings.CutPrefix(p, sign); return ok && match(q) })
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
