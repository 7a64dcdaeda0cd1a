package personas

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/config"
)

// Find returns the persona called name visible from d.Cwd.
func Find(d Dirs, name string) (Persona, bool) {
	list, _ := Discover(d)
	i := slices.IndexFunc(list, func(p Persona) bool { return p.Name == name })
	if i < 0 {
		return Persona{}, false
	}
	return list[i], true
}

func parseFile(t *testing.T, path string) (Persona, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(path, data)
}

// Claude Code's own example subagents parse unchanged.
func TestParse_ClaudeCodeSubagents(t *testing.T) {
	tests := []struct {
		file, name, model string
		tools             []string
		quiet             bool // no note: every key is one hub reads or a cosmetic one
	}{
		{"code-reviewer.md", "code-reviewer", "", []string{"Read", "Grep", "Glob", "Bash"}, true},
		{"debugger.md", "debugger", "", []string{"Read", "Edit", "Bash", "Grep", "Glob"}, true},
		{"data-scientist.md", "data-scientist", "sonnet", []string{"Bash", "Read", "Write"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parseFile(t, filepath.Join("testdata", "claude", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != tt.name || p.Model != tt.model || !slices.Equal(p.Tools, tt.tools) || p.Description == "" {
				t.Errorf("got name %q model %q tools %q description %q", p.Name, p.Model, p.Tools, p.Description)
			}
			if !strings.HasPrefix(p.Prompt, "You are ") {
				t.Errorf("prompt = %q, want the body", p.Prompt)
			}
			if tt.quiet != (len(p.Notes) == 0) {
				t.Errorf("notes = %q", p.Notes)
			}
		})
	}
}

// hub's superset: backend, mode, rules in Claude's syntax, skills,
// delegates, replace; an unknown key is kept and noted with its line.
func TestParse_HubSuperset(t *testing.T) {
	p, err := parseFile(t, filepath.Join("testdata", "hub", "reviewer.md"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Agent != "codex" || p.Model != "gpt-5-codex" || p.Mode != ModeReadOnly || !p.Replace ||
		!slices.Equal(p.Tools, []string{"read", "grep", "WebFetch"}) || !slices.Equal(p.Skills, []string{"go-style"}) ||
		!slices.Equal(p.Delegates, []string{"debugger"}) || p.Prompt != "You review changes. You never edit files." {
		t.Errorf("got %+v", p)
	}
	want := []config.PermissionRule{{Tool: "WebFetch", Decision: "ask"}, {Tool: "Read", Path: "secrets/**", Decision: "deny"}}
	if !slices.Equal(p.Permissions, want) {
		t.Errorf("permissions = %+v, want %+v", p.Permissions, want)
	}
	if p.Extra["isolation"] != "worktree" || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "reviewer.md:17: key isolation") {
		t.Errorf("extra %v, notes %q: want isolation kept and noted once with its line", p.Extra, p.Notes)
	}
}

// A bad file is one line naming the file, the line and the key.
func TestParse_BadFilesNameFileLineAndKey(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"no front matter", "You are a reviewer.\n", "x.md:1:"},
		{"unclosed", "---\nname: a\n", "x.md:1: front matter is not closed"},
		{"tools mapping", "---\nname: a\ndescription: d\ntools:\n  read: yes\n---\n", "x.md:4: key tools:"},
		{"replace not bool", "---\nname: a\ndescription: d\n\nreplace: maybe\n---\n", "x.md:5: key replace:"},
		{"bad rule", "---\nname: a\ndescription: d\npermissions:\n  deny: [\"Bash(\"]\n---\n", "x.md:4: key permissions:"},
		{"bad decision", "---\nname: a\ndescription: d\npermissions:\n  - {tool: bash, decision: maybe}\n---\n", "x.md:4: key permissions:"},
		{"no description", "---\nname: a\n---\nbody\n", "key description: missing"},
		{"no name", "---\ndescription: d\n---\n", "key name: missing"},
		{"bad name", "---\nname: ../evil\ndescription: d\n---\n", "key name:"},
		{"yaml error", "---\nname: [a\n---\n", "x.md: front matter:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.md", []byte(tt.src))
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v, want one line containing %q", err, tt.want)
			}
		})
	}
	if _, err := parseFile(t, filepath.Join("testdata", "bad", "tools-map.md")); err == nil || !strings.Contains(err.Error(), "tools-map.md:4: key tools") {
		t.Errorf("err = %v", err)
	}
}

func writeAgent(t *testing.T, dir, name, desc string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".md")
	if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\nprompt of "+desc+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Discovery: the nearest file wins a name; a project persona runs only
// once trusted, never shadows the user's own meanwhile, and is untrusted
// again when it changes.
func TestDiscover_NearestWinsAndProjectNeedsTrust(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base := t.TempDir()
	repo, userDir, home := filepath.Join(base, "repo"), filepath.Join(base, "cfg"), filepath.Join(base, "home")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "sub")
	writeAgent(t, filepath.Join(home, ".claude", "agents"), "tester", "claude user tester")
	writeAgent(t, filepath.Join(userDir, "agents"), "tester", "hub user tester")
	writeAgent(t, filepath.Join(userDir, "agents"), "reviewer", "my reviewer")
	writeAgent(t, filepath.Join(repo, ".claude", "agents"), "reviewer", "repo reviewer")
	deploy := writeAgent(t, filepath.Join(repo, ".hub", "agents"), "deploy", "repo deploy")
	writeAgent(t, filepath.Join(sub, ".hub", "agents"), "deploy", "sub deploy")
	d := Dirs{Cwd: sub, UserDir: userDir, Home: home}

	got := func(d Dirs) map[string]Persona {
		list, _ := Discover(d)
		m := map[string]Persona{}
		for _, p := range list {
			m[p.Name] = p
		}
		return m
	}
	m := got(d)
	if m["tester"].Description != "hub user tester" {
		t.Errorf("tester = %q, want hub's user file over ~/.claude", m["tester"].Description)
	}
	if r := m["reviewer"]; r.Description != "my reviewer" || !r.Trusted {
		t.Errorf("reviewer = %+v, want the user's: an untrusted project file never shadows it", r)
	}
	if dp := m["deploy"]; dp.Description != "sub deploy" || dp.Trusted || !strings.Contains(dp.Untrusted, "hub trust") {
		t.Errorf("deploy = %+v, want the nearest, untrusted with a reason", dp)
	}
	d.TrustProject = true
	if m := got(d); m["reviewer"].Description != "repo reviewer" || !m["deploy"].Trusted {
		t.Errorf("--trust-project: reviewer %q deploy trusted %v", m["reviewer"].Description, m["deploy"].Trusted)
	}
	d.TrustProject = false
	files := ProjectFiles(sub)
	if len(files) != 3 || !slices.Contains(files, deploy) {
		t.Fatalf("ProjectFiles = %q", files)
	}
	if err := config.TrustFiles(files); err != nil {
		t.Fatal(err)
	}
	if m := got(d); !m["deploy"].Trusted || m["reviewer"].Description != "repo reviewer" {
		t.Errorf("after hub trust: deploy trusted %v, reviewer %q", m["deploy"].Trusted, m["reviewer"].Description)
	}
	writeAgent(t, filepath.Join(sub, ".hub", "agents"), "deploy", "sub deploy, changed")
	if p, _ := Find(d, "deploy"); p.Trusted {
		t.Errorf("a changed persona file kept its trust")
	}
}
