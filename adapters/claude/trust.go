package claude

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hubdev/hub/internal/config"
)

// projectSources are claude's setting sources a repository ships, with
// the file of each in the session's directory. claude -p reads them
// without its trust dialog, and they may allow tools past hub's gate
// (permissions.allow) and run commands (hooks, apiKeyHelper, the MCP
// servers of .mcp.json).
var projectSources = []struct{ source, file string }{
	{"project", filepath.Join(".claude", "settings.json")},
	{"local", filepath.Join(".claude", "settings.local.json")},
	{"project", ".mcp.json"},
}

// ProjectSettings are the claude settings files of the project in cwd, for
// 'hub trust' to record.
func ProjectSettings(cwd string) []string {
	var out []string
	for _, s := range projectSources {
		if _, err := config.ReadProjectFile(filepath.Join(cwd, s.file)); err == nil {
			out = append(out, filepath.Join(cwd, s.file))
		}
	}
	return out
}

// settingSources is claude's --setting-sources for a session in cwd: ""
// (all of them) when the project is trusted for the run or each of its
// settings files is absent or trusted as it is now; else the user's and
// the trusted ones, with the files left out.
func (a *Adapter) settingSources(cwd string) (sources string, untrusted []string) {
	keep := []string{"user", "project", "local"}
	for _, s := range projectSources {
		path := filepath.Join(cwd, s.file)
		data, err := config.ReadProjectFile(path)
		if !a.TrustProject && !errors.Is(err, fs.ErrNotExist) && (err != nil || !config.IsTrusted(path, data)) {
			keep, untrusted = slices.DeleteFunc(keep, func(k string) bool { return k == s.source }), append(untrusted, path)
		}
	}
	if len(untrusted) == 0 {
		return "", nil
	}
	return strings.Join(keep, ","), untrusted
}
