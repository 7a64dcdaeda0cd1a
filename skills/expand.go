package skills

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"

	"github.com/hubdev/hub/internal/safefile"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

var tmpl = sync.OnceValue(func() *template.Template { return template.Must(template.ParseFS(templateFS, "templates/*.tmpl")) })

const (
	maxFileBytes = 256 << 10 // one referenced file inlined into a prompt
	maxCopyBytes = 64 << 20  // one file of a skill folder copied (when a symlink cannot be made)
)

type File struct {
	Path string // relative to the skill folder, slash-separated
	Text string
}

// refPattern finds relative paths such as ./scripts/run.sh in a skill body.
var refPattern = regexp.MustCompile(`(?:\./)?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\.[A-Za-z0-9]+`)

// ReferencedFiles returns the text files of the skill folder the body
// names. Binary or huge files, and links, are skipped: the agent can open
// them itself, through its permission gate.
func (s Skill) ReferencedFiles() []File {
	var out []File
	seen := map[string]bool{}
	for _, m := range refPattern.FindAllString(s.Body, -1) {
		rel := filepath.ToSlash(filepath.Clean(strings.TrimPrefix(m, "./")))
		if seen[rel] || rel == FileName || strings.HasPrefix(rel, "..") {
			continue
		}
		seen[rel] = true
		data, err := safefile.ReadIn(s.Dir, rel, maxFileBytes) // no link: a repository's skill may not inline ~/.ssh/id_rsa
		if err != nil || !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		out = append(out, File{Path: rel, Text: strings.TrimRight(string(data), "\n")})
	}
	return out
}

func (s Skill) Render() string {
	return render("prompt.tmpl", struct {
		Name, Dir, Body string
		Files           []File
	}{s.Name, s.Dir, s.Body, s.ReferencedFiles()})
}

func render(name string, data any) string {
	var b strings.Builder
	_ = tmpl().ExecuteTemplate(&b, name, data)
	return strings.TrimSpace(b.String())
}

// Prompt is the skill activated for one prompt, then the user's text.
func (s Skill) Prompt(args string) string {
	r := PromptPrefix([]Skill{s})
	if args = strings.TrimSpace(args); args != "" {
		r += "\n\n" + args
	}
	return r
}

// Instructions renders skills as system-level text.
func Instructions(list []Skill) string {
	if len(list) == 0 {
		return ""
	}
	return render("instructions.tmpl", list)
}

func PromptPrefix(list []Skill) string { return render("prefix.tmpl", list) }

// place makes each skill folder visible as dir/<name>, by symlink, or by
// copy when no working symlink can be made (Windows without the privilege;
// Wine, whose CreateSymbolicLinkW reports success and creates nothing).
func place(list []Skill, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create skills dir: %w", err)
	}
	for _, s := range list {
		dst := filepath.Join(dir, s.Name)
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if !linkSkill(s.Dir, dst) {
			if err := copyDir(s.Dir, dst); err != nil {
				return fmt.Errorf("place skill %s in %s: %w", s.Name, dir, err)
			}
		}
	}
	return nil
}

// symlink is os.Symlink; tests stand in Wine's, which makes nothing.
var symlink = os.Symlink

// linkSkill reports whether the skill reads through the link; a link
// that does not is removed.
func linkSkill(src, dst string) bool {
	if err := symlink(src, dst); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dst, FileName)); err == nil {
		return true
	}
	_ = os.Remove(dst)
	return false
}

// NativeDirs are where agents that scan a project for skills look: claude
// reads .claude/skills, codex and others the shared .agents/skills.
var NativeDirs = []string{filepath.Join(".claude", "skills"), filepath.Join(".agents", "skills")}

// PlaceTemp lays the skills out in a fresh temp dir as a project would hold
// them, for adapters that add the root as a directory the agent scans;
// nothing is written to the user's own directories.
func PlaceTemp(list []Skill) (root string, cleanup func() error, err error) {
	root, err = os.MkdirTemp("", "hub-skills-")
	if err != nil {
		return "", nil, fmt.Errorf("temp skills dir: %w", err)
	}
	for _, d := range NativeDirs {
		if err := place(list, filepath.Join(root, d)); err != nil {
			_ = os.RemoveAll(root)
			return "", nil, err
		}
	}
	origins := make(map[string]string, len(list))
	for _, s := range list {
		origins[s.Name] = s.Dir
	}
	data, _ := json.Marshal(origins) // a map of strings always encodes
	if err := os.WriteFile(filepath.Join(root, originsFile), data, 0o600); err != nil {
		_ = os.RemoveAll(root)
		return "", nil, fmt.Errorf("record placed skills: %w", err)
	}
	return root, func() error { return os.RemoveAll(root) }, nil
}

// originsFile, under a PlaceTemp root, maps each placed name to its folder,
// so Placed finds the original behind a copy as well as behind a link.
const originsFile = "hub-skill-origins.json"

// SharedDir is the .agents/skills folder under a PlaceTemp root, for agents
// given a skills folder rather than a project.
func SharedDir(root string) string { return filepath.Join(root, ".agents", "skills") }

// Placed reads back the skills PlaceTemp laid out under root, each with
// the folder it stands for (not the temp link).
func Placed(root string) ([]Skill, error) {
	dir := SharedDir(root)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read placed skills: %w", err)
	}
	var origins map[string]string
	if data, err := os.ReadFile(filepath.Join(root, originsFile)); err == nil {
		_ = json.Unmarshal(data, &origins) // a bad file: each skill is read where it is placed
	}
	var out []Skill
	for _, e := range entries {
		p, ok := origins[e.Name()]
		if !ok {
			p = filepath.Join(dir, e.Name())
		}
		s, err := Load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := safefile.Read(p, maxCopyBytes)
		if errors.Is(err, safefile.ErrNotRegular) {
			return nil // a device or FIFO is no part of a skill
		}
		if err != nil {
			return err
		}
		info, _ := d.Info()
		mode := fs.FileMode(0o644)
		if info != nil {
			mode = info.Mode().Perm()
		}
		return os.WriteFile(target, data, mode)
	})
}
