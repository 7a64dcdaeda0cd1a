package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hubdev/hub/internal/config"
)

// projectSources are claude's setting sources a repository ships, with
// the file of each in the session's directory. claude -p reads them
// without its trust dialog, and they may allow tools past hub's gate
// (permissions.allow) and run commands (hooks, apiKeyHelper, the MCP
// servers of .mcp.json). A dir's files are claude's skills, commands and
// subagents, read with the project source: their allowed-tools, tools,
// permissionMode and hooks grant as much.
var projectSources = []struct {
	source, file string
	dir          bool
}{
	{"project", filepath.Join(".claude", "settings.json"), false},
	{"local", filepath.Join(".claude", "settings.local.json"), false},
	{"project", ".mcp.json", false},
	{"project", filepath.Join(".claude", "skills"), true},
	{"project", filepath.Join(".claude", "commands"), true},
	{"project", filepath.Join(".claude", "agents"), true},
}

// projectFiles are the files of projectSources in cwd, each with its
// source: a dir's .md files, and any link or unreadable entry in it (never
// trusted, so claude runs without its source). claude reads those dirs in
// cwd's parents too, up to the repository root, short of the home dir.
func projectFiles(cwd string) (sources, paths []string) {
	home, _ := os.UserHomeDir()
	for _, s := range projectSources {
		if !s.dir {
			sources, paths = append(sources, s.source), append(paths, filepath.Join(cwd, s.file))
			continue
		}
		for _, dir := range config.ProjectDirs(cwd) {
			if home != "" && dir == filepath.Clean(home) {
				break
			}
			for _, p := range config.FilesUnder(filepath.Join(dir, s.file), ".md") {
				sources, paths = append(sources, s.source), append(paths, p)
			}
		}
	}
	return sources, paths
}

// ProjectSettings are the claude settings files of the project in cwd, for
// 'hub trust' to record.
func ProjectSettings(cwd string) []string {
	_, paths := projectFiles(cwd)
	return config.Trustable(paths)
}

// settingSources is claude's --setting-sources for a session in cwd: nil
// (no flag: the user's own, or all) when the project is trusted for the
// run or each of its settings files is absent or trusted as it is now;
// else the sources both the user's own --setting-sources (in claude's
// args) and trust allow, never wider than either, with the files left out.
func (a *Adapter) settingSources(cwd string) (sources, untrusted []string) {
	keep := []string{"user", "project", "local"}
	for i, arg := range a.argv[1:] {
		v, ok := strings.CutPrefix(arg, "--setting-sources=")
		if !ok && arg == "--setting-sources" && i+2 < len(a.argv) {
			v, ok = a.argv[i+2], true
		}
		if ok {
			keep = strings.Split(strings.ReplaceAll(v, " ", ""), ",")
		}
	}
	srcs, paths := projectFiles(cwd)
	for i, path := range paths {
		if !a.TrustProject && config.UntrustedFile(path) {
			keep, untrusted = slices.DeleteFunc(keep, func(k string) bool { return k == srcs[i] }), append(untrusted, path)
		}
	}
	if len(untrusted) == 0 {
		return nil, nil
	}
	return append([]string{}, keep...), untrusted
}
