package personas

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/skills"
)

// Where a persona was found, nearest first.
const (
	SourceProjectHub    = "project:.hub/agents"
	SourceProjectClaude = "project:.claude/agents"
	SourceUser          = "user"
	SourceClaudeUser    = "user:~/.claude/agents"
)

// Warning is a persona file that could not be used, or was passed over.
type Warning = skills.Warning

// Dirs are where Discover looks; zero fields are the defaults.
type Dirs struct {
	Cwd string
	// UserDir is hub's config dir (config.UserDir()); Home the user's home
	// (for ~/.claude/agents).
	UserDir, Home string
	// TrustProject trusts every project file for this run (--trust-project).
	TrustProject bool
}

type root struct{ dir, source string }

func (d Dirs) roots() []root {
	var out []root
	if d.Cwd != "" {
		for _, dir := range config.ProjectDirs(d.Cwd) {
			out = append(out, root{filepath.Join(dir, ".hub", "agents"), SourceProjectHub},
				root{filepath.Join(dir, ".claude", "agents"), SourceProjectClaude})
		}
	}
	out = append(out, root{filepath.Join(cmp.Or(d.UserDir, config.UserDir()), "agents"), SourceUser})
	home := d.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" {
		out = append(out, root{filepath.Join(home, ".claude", "agents"), SourceClaudeUser})
	}
	return out
}

func (r root) project() bool { return strings.HasPrefix(r.source, "project:") }

// Discover lists the personas visible from d.Cwd, sorted by name. A name
// found twice keeps the nearest file, except that a project file hub does
// not trust never shadows the user's own. An untrusted project persona is
// listed with the reason it cannot run. Bad files become warnings.
func Discover(d Dirs) ([]Persona, []Warning) {
	var all []Persona
	var warns []Warning
	for _, r := range d.roots() {
		list, ws := scan(r, d.TrustProject)
		all, warns = append(all, list...), append(warns, ws...)
	}
	out, passed := skills.Nearest("persona", all, func(p Persona) (string, string, bool, bool) {
		return p.Name, p.File, p.Trusted, p.Trusted && !strings.HasPrefix(p.Source, "project:")
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, append(warns, passed...)
}

// scan loads the *.md files of one root.
func scan(r root, trustProject bool) ([]Persona, []Warning) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, []Warning{{Path: r.dir, Message: err.Error()}}
	}
	var out []Persona
	var warns []Warning
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		file := filepath.Join(r.dir, e.Name())
		data, err := config.ReadProjectFile(file)
		var p Persona
		if err == nil {
			p, err = Parse(file, data)
		}
		if err != nil {
			warns = append(warns, Warning{Path: file, Message: err.Error()})
			continue
		}
		p.Source, p.Trusted = r.source, !r.project() || trustProject || config.IsTrusted(file, data)
		if !p.Trusted {
			p.Untrusted = fmt.Sprintf("the project file %s is not trusted: run 'hub trust' in %s (or pass --trust-project) to let it run",
				file, config.ProjectRoot(filepath.Dir(filepath.Dir(r.dir))))
		}
		out = append(out, p)
	}
	return out, warns
}

// ProjectFiles are the project persona files visible from cwd, for 'hub
// trust' to record.
func ProjectFiles(cwd string) []string {
	var out []string
	for _, r := range (Dirs{Cwd: cwd}).roots() {
		if !r.project() {
			continue
		}
		list, _ := scan(r, false)
		for _, p := range list {
			out = append(out, p.File)
		}
	}
	return out
}
