// Package skills discovers Agent Skills (agentskills.io format: a folder
// holding SKILL.md) and delivers them to agents: as a prompt prefix, as
// instructions, or by placing the folders where an agent looks natively.
package skills

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

var (
	ErrNotFound  = errors.New("skill not found")
	ErrMalformed = errors.New("malformed skill")
)

const FileName = "SKILL.md"

// Where a skill was found, in lookup priority order.
const (
	SourceProjectHub    = "project:.hub/skills"
	SourceProjectAgents = "project:.agents/skills"
	SourceUser          = "user"
)

type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// AllowedTools become allow rules when the skill is activated; a
	// project skill hub does not trust yet keeps them in IgnoredTools.
	AllowedTools []string `json:"allowedTools,omitempty"`
	IgnoredTools []string `json:"ignoredAllowedTools,omitempty"`
	Dir          string   `json:"dir"`
	Source       string   `json:"source"`
	Trusted      bool     `json:"trusted"`         // a user skill, or a project one trusted as it is now
	Notes        []string `json:"notes,omitempty"` // for the user when the skill is activated
	Body         string   `json:"-"`
}

type Warning struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (w Warning) String() string { return w.Path + ": " + w.Message }

var validName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Root is a folder searched for skills or personas.
type Root struct{ Dir, Source string }

func (r Root) Project() bool { return strings.HasPrefix(r.Source, "project:") }

// roots returns the folders searched for cwd, nearest first, so a
// subproject's skill shadows the repository's of the same name; then the
// user's.
func roots(cwd, userDir string) []Root {
	var out []Root
	for _, dir := range config.ProjectDirs(cwd) {
		out = append(out, Root{filepath.Join(dir, ".hub", "skills"), SourceProjectHub},
			Root{filepath.Join(dir, ".agents", "skills"), SourceProjectAgents})
	}
	if userDir != "" {
		out = append(out, Root{filepath.Join(userDir, "skills"), SourceUser})
	}
	return out
}

// DiscoverTrusting lists the skills visible from cwd (userDir "":
// config.UserDir()). A name found twice keeps the nearest copy, except that
// a project skill hub does not trust never shadows the user's own. An
// untrusted project skill loads as instructions only: its allowed-tools
// are ignored.
func DiscoverTrusting(cwd, userDir string, trustProject bool) ([]Skill, []Warning) {
	out, warns := DiscoverIn("skill", roots(cwd, cmp.Or(userDir, config.UserDir())), func(r Root, dir string, e fs.DirEntry) (Skill, bool, error) {
		s, ok, err := loadEntry(r, dir, e)
		s.Trusted = !r.Project() || trustProject || s.Trusted
		return s, ok, err
	}, func(s Skill) (string, string, bool, bool) { return s.Name, s.Dir, s.Trusted, s.Source == SourceUser })
	for i, s := range out {
		if !s.Trusted && len(s.AllowedTools) > 0 {
			why := "the project is not trusted"
			if err := config.SkillChange(filepath.Join(s.Dir, FileName)); err != nil {
				why = err.Error()
			}
			out[i].IgnoredTools, out[i].AllowedTools = s.AllowedTools, nil
			out[i].Notes = append(s.Notes, fmt.Sprintf("skill %s: allowed-tools %s ignored: %s (run 'hub trust' in %s)",
				s.Name, strings.Join(s.AllowedTools, " "), why, config.ProjectRoot(cwd)))
		}
	}
	return out, warns
}

// DiscoverIn loads the items of roots, listed nearest first, keeps those
// nearest keeps and sorts them by name.
func DiscoverIn[T any](kind string, roots []Root, load func(Root, string, fs.DirEntry) (T, bool, error),
	key func(T) (name, where string, trusted, own bool)) ([]T, []Warning) {
	var all []T
	var warns []Warning
	for _, r := range roots {
		list, ws := Scan(r, load)
		all, warns = append(all, list...), append(warns, ws...)
	}
	out, passed := nearest(kind, all, key)
	slices.SortStableFunc(out, func(a, b T) int {
		na, _, _, _ := key(a)
		nb, _, _, _ := key(b)
		return strings.Compare(na, nb)
	})
	return out, append(warns, passed...)
}

// Scan loads the entries of the folder r that load takes (ok); one it
// fails to load is a warning.
func Scan[T any](r Root, load func(Root, string, fs.DirEntry) (T, bool, error)) ([]T, []Warning) {
	entries, err := os.ReadDir(r.Dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, []Warning{{r.Dir, err.Error()}}
	}
	var out []T
	var warns []Warning
	for _, e := range entries {
		p := filepath.Join(r.Dir, e.Name())
		if v, ok, err := load(r, p, e); err != nil {
			warns = append(warns, Warning{p, err.Error()})
		} else if ok {
			out = append(out, v)
		}
	}
	return out, warns
}

// nearest keeps, of items listed nearest first, the first of each name,
// except that one hub does not trust never shadows the user's own; each
// it passes over becomes a warning.
func nearest[T any](kind string, items []T, key func(T) (name, where string, trusted, own bool)) ([]T, []Warning) {
	mine := map[string]string{}
	for _, it := range items {
		if name, where, _, own := key(it); own && mine[name] == "" {
			mine[name] = where
		}
	}
	seen := map[string]string{}
	var out []T
	var warns []Warning
	for _, it := range items {
		name, where, trusted, _ := key(it)
		if file, ok := mine[name]; ok && !trusted {
			warns = append(warns, Warning{where, fmt.Sprintf("%s %q is passed over for your own %s: the project is not trusted (run 'hub trust')", kind, name, file)})
		} else if prev, dup := seen[name]; dup {
			warns = append(warns, Warning{where, fmt.Sprintf("%s %q is shadowed by %s", kind, name, prev)})
		} else {
			seen[name] = where
			out = append(out, it)
		}
	}
	return out, warns
}

// loadEntry loads the skill folder dir of r (a folder or a link to one).
func loadEntry(r Root, dir string, _ fs.DirEntry) (Skill, bool, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return Skill{}, false, nil
	}
	s, err := load(dir, r.Project())
	if err != nil {
		return Skill{}, false, errors.New(strings.ReplaceAll(err.Error(), dir+": ", ""))
	}
	s.Source = r.Source
	return s, true, nil
}

// ProjectFiles are the SKILL.md files of the project skills visible from
// cwd that 'hub trust' can record.
func ProjectFiles(cwd string) []string {
	var out []string
	for _, r := range roots(cwd, "") { // the project's alone
		list, _ := Scan(r, loadEntry)
		for _, s := range list {
			out = append(out, filepath.Join(s.Dir, FileName))
		}
	}
	return config.Trustable(out)
}

func FindTrusting(cwd, userDir, name string, trustProject bool) (Skill, error) {
	all, warns := DiscoverTrusting(cwd, userDir, trustProject)
	i := slices.IndexFunc(all, func(s Skill) bool { return s.Name == name })
	for _, w := range warns {
		malformed := strings.HasPrefix(w.Message, ErrMalformed.Error())
		switch {
		case filepath.Base(w.Path) != name:
		case i >= 0 && !malformed: // a copy passed over
			all[i].Notes = append(all[i].Notes, w.String())
		case i < 0 && malformed:
			return Skill{}, fmt.Errorf("skill %q in %s cannot be used: %s", name, w.Path, w.Message)
		}
	}
	if i >= 0 {
		return all[i], nil
	}
	names := make([]string, 0, len(all))
	for _, s := range all {
		names = append(names, s.Name)
	}
	return Skill{}, fmt.Errorf("%w: %q (available: %v; see 'hub skills list')", ErrNotFound, name, names)
}

// Load parses dir/SKILL.md; Trusted says whether the trust store holds it
// as it is now.
func Load(dir string) (Skill, error) { return load(dir, true) }

// load without trust leaves Trusted false, unread.
func load(dir string, trust bool) (Skill, error) {
	file := filepath.Join(dir, FileName)
	data, err := config.ReadProjectFile(file) // capped; no device or FIFO
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Skill{}, fmt.Errorf("%w: %s: no %s in folder", ErrMalformed, dir, FileName)
		}
		return Skill{}, fmt.Errorf("%w: %s: %v", ErrMalformed, dir, err)
	}
	s, err := Parse(data)
	if err != nil {
		return Skill{}, fmt.Errorf("%s: %w", dir, err)
	}
	s.Dir, s.Trusted = dir, trust && config.IsTrusted(file, data)
	if s.Name != filepath.Base(dir) {
		return Skill{}, fmt.Errorf("%w: %s: name %q does not match folder name %q", ErrMalformed, dir, s.Name, filepath.Base(dir))
	}
	return s, nil
}

func Parse(data []byte) (Skill, error) {
	front, body, why := FrontMatter(data)
	if why != "" {
		return Skill{}, fmt.Errorf("%w: SKILL.md: %s", ErrMalformed, why)
	}
	var fm struct {
		Name         string    `yaml:"name"`
		Description  string    `yaml:"description"`
		AllowedTools yaml.Node `yaml:"allowed-tools"`
	}
	if err := yaml.Unmarshal(front, &fm); err != nil {
		return Skill{}, fmt.Errorf("%w: front matter: %s", ErrMalformed, adapters.OneLine(err.Error()))
	}
	s := Skill{Name: strings.TrimSpace(fm.Name), Description: strings.TrimSpace(fm.Description), Body: strings.TrimSpace(string(body))}
	switch {
	case s.Name == "":
		return Skill{}, fmt.Errorf("%w: front matter lacks 'name'", ErrMalformed)
	case len(s.Name) > 64 || !validName.MatchString(s.Name):
		return Skill{}, fmt.Errorf("%w: name %q must be 1-64 lowercase letters, digits and single hyphens", ErrMalformed, s.Name)
	case s.Description == "":
		return Skill{}, fmt.Errorf("%w: front matter lacks 'description'", ErrMalformed)
	}
	tools, err := NameList(&fm.AllowedTools, strings.Fields)
	if err != nil {
		return Skill{}, fmt.Errorf("%w: allowed-tools: %w", ErrMalformed, err)
	}
	s.AllowedTools = tools
	return s, nil
}

// FrontMatter splits a Markdown file into its YAML front matter and body,
// after a BOM and with CRLF read as LF; why says what is wrong.
func FrontMatter(data []byte) (front, body []byte, why string) {
	data = bytes.ReplaceAll(bytes.TrimPrefix(data, []byte("\ufeff")), []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, nil, "the file must start with a '---' YAML front matter block"
	}
	// Keep the newline before the closing '---' so an empty block
	// ("---\n---") is found like any other.
	front, rest, ok := bytes.Cut(data[3:], []byte("\n---"))
	if !ok {
		return nil, nil, "front matter is not closed by '---'"
	}
	_, body, _ = bytes.Cut(rest, []byte("\n"))
	return front, body, ""
}

// NameList reads one string that split cuts into names, or a YAML list;
// blanks and repeats dropped. An absent or null value is nil.
func NameList(v *yaml.Node, split func(string) []string) ([]string, error) {
	var raw []string
	switch {
	case v.Kind == 0 || v.Tag == "!!null":
		return nil, nil
	case v.Kind == yaml.ScalarNode:
		raw = split(v.Value)
	case v.Kind == yaml.SequenceNode:
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: each entry must be a name", e.Line)
			}
			raw = append(raw, e.Value)
		}
	default:
		return nil, errors.New("must be a list of names or a YAML list")
	}
	out := []string{}
	for _, s := range raw {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
