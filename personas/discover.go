package personas

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// Dirs are where Discover looks; zero fields are the defaults.
type Dirs struct {
	Cwd           string
	UserDir, Home string // hub's config dir; the user's home (for ~/.claude/agents)
	TrustProject  bool   // --trust-project
}

func (d Dirs) roots() []skills.Root {
	var out []skills.Root
	if d.Cwd != "" {
		for _, dir := range config.ProjectDirs(d.Cwd) {
			out = append(out, skills.Root{Dir: filepath.Join(dir, ".hub", "agents"), Source: SourceProjectHub},
				skills.Root{Dir: filepath.Join(dir, ".claude", "agents"), Source: SourceProjectClaude})
		}
	}
	out = append(out, skills.Root{Dir: filepath.Join(cmp.Or(d.UserDir, config.UserDir()), "agents"), Source: SourceUser})
	home := d.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" {
		out = append(out, skills.Root{Dir: filepath.Join(home, ".claude", "agents"), Source: SourceClaudeUser})
	}
	return out
}

// Discover lists the personas visible from d.Cwd, sorted by name. A name
// found twice keeps the nearest file, except that a project file hub does
// not trust never shadows the user's own.
func Discover(d Dirs) ([]Persona, []skills.Warning) {
	return skills.DiscoverIn("persona", d.roots(), d.load, func(p Persona) (string, string, bool, bool) {
		return p.Name, p.File, p.Trusted, p.Trusted && !strings.HasPrefix(p.Source, "project:")
	})
}

func (d Dirs) load(r skills.Root, file string, e fs.DirEntry) (Persona, bool, error) {
	if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
		return Persona{}, false, nil
	}
	data, err := config.ReadProjectFile(file)
	var p Persona
	if err == nil {
		p, err = Parse(file, data)
	}
	if err != nil {
		return Persona{}, false, err
	}
	p.Source, p.Trusted = r.Source, !r.Project() || d.TrustProject || config.IsTrusted(file, data)
	if !p.Trusted {
		p.Untrusted = fmt.Sprintf("the project file %s is not trusted: run 'hub trust' in %s (or pass --trust-project) to let it run",
			file, config.ProjectRoot(filepath.Dir(filepath.Dir(r.Dir))))
	}
	return p, true, nil
}

// ProjectFiles are the project persona files visible from cwd.
func ProjectFiles(cwd string) []string {
	d := Dirs{Cwd: cwd}
	var out []string
	for _, r := range d.roots() {
		if !r.Project() {
			continue
		}
		list, _ := skills.Scan(r, d.load)
		for _, p := range list {
			out = append(out, p.File)
		}
	}
	return out
}
