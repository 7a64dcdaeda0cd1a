package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// settingsSources are the setting sources a repository ships to claude or
// a fork of it (qodercli), with the file of each under the session's
// directory, dir standing for the CLI's own folder (.claude, .qoder). In
// -p or ACP mode they are read without a trust dialog, and they may allow
// tools past hub's gate (permissions.allow) and run commands (hooks,
// apiKeyHelper, the MCP servers of .mcp.json). A folder's files are
// skills, commands and subagents, read with the project source: their
// allowed-tools, tools, permissionMode and hooks grant as much. An entry
// with only is read by that CLI alone (qodercli's .agents/skills).
var settingsSources = []struct {
	source, file string
	folder       bool
	only         string
}{
	{"project", "settings.json", false, ""},
	{"local", "settings.local.json", false, ""},
	{"project", filepath.Join("..", ".mcp.json"), false, ""},
	{"project", "skills", true, ""},
	{"project", "commands", true, ""},
	{"project", "agents", true, ""},
	{"project", filepath.Join("..", ".agents", "skills"), true, ".qoder"},
}

// settingsFiles are the files of settingsSources in cwd, each with its
// source: a folder's .md files, and any link or unreadable entry in it
// (never trusted, so the CLI runs without its source). The CLI reads
// those folders in cwd's parents too, up to the repository root, short
// of the home dir.
func settingsFiles(cwd, dir string) (sources, paths []string) {
	home, _ := os.UserHomeDir()
	for _, s := range settingsSources {
		if s.only != "" && s.only != dir {
			continue
		}
		if !s.folder {
			sources, paths = append(sources, s.source), append(paths, filepath.Join(cwd, dir, s.file))
			continue
		}
		for _, d := range ProjectDirs(cwd) {
			if home != "" && d == filepath.Clean(home) {
				break
			}
			for _, p := range FilesUnder(filepath.Join(d, dir, s.file), ".md") {
				sources, paths = append(sources, s.source), append(paths, p)
			}
		}
	}
	return sources, paths
}

// SettingsFiles are the settings files of the project in cwd that the CLI
// whose folder is dir reads, for 'hub trust' to record.
func SettingsFiles(cwd, dir string) []string {
	_, paths := settingsFiles(cwd, dir)
	return Trustable(paths)
}

// SettingSources is args (a claude-like CLI's, the user's own flags
// included) for a session in cwd: as it is when the project is trusted
// for the run or each of its settings files is absent or trusted as it
// is now; else with one --setting-sources of the sources both the user's
// own list (the last, as claude reads it; every one, as qodercli does) and trust allow, never wider
// than either, with the files left out and whether the project source is.
func SettingSources(args []string, cwd, dir string, trustProject bool) (out, untrusted []string, noProject bool) {
	keep, own := []string{"user", "project", "local"}, []string(nil)
	for i := 0; i < len(args); i++ {
		v, ok := strings.CutPrefix(args[i], "--setting-sources=")
		if !ok && args[i] == "--setting-sources" && i+1 < len(args) {
			v, ok, i = args[i+1], true, i+1
		}
		if ok {
			if dir != ".qoder" { // claude reads the last; qodercli every one
				own = nil
			}
			own, keep = append(own, strings.Split(strings.ReplaceAll(v, " ", ""), ",")...), nil
			continue
		}
		out = append(out, args[i])
	}
	if keep == nil { // the user's own
		keep = own
	}
	srcs, paths := settingsFiles(cwd, dir)
	for i, path := range paths {
		if !trustProject && UntrustedFile(path) {
			keep, untrusted = slices.DeleteFunc(keep, func(k string) bool { return k == srcs[i] }), append(untrusted, path)
		}
	}
	if len(untrusted) == 0 {
		return args, nil, false
	}
	return append(out, "--setting-sources", strings.Join(keep, ",")), untrusted, !slices.Contains(keep, "project")
}
