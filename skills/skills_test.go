package skills

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Discover is DiscoverTrusting without --trust-project.
func Discover(cwd, userDir string) ([]Skill, []Warning) { return DiscoverTrusting(cwd, userDir, false) }

// Find is FindTrusting without --trust-project.
func Find(cwd, userDir, name string) (Skill, error) { return FindTrusting(cwd, userDir, name, false) }

func fixture(t *testing.T) (cwd, userDir string) {
	t.Helper()
	base, err := filepath.Abs("../testdata/skills")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(base, "project"), filepath.Join(base, "user")
}

// The priority of trusted project skills (see
// TestDiscover_UntrustedProjectSkillsAreInstructionsOnly for the others).
func TestDiscover_SourcesPriorityAndWarnings(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	cwd, user := fixture(t)
	list, warns := DiscoverTrusting(cwd, user, true)
	got := map[string]Skill{}
	for _, s := range list {
		got[s.Name] = s
	}
	want := map[string]string{
		"pdf-tools":  SourceProjectHub,
		"commit-msg": SourceProjectAgents,
		"review":     SourceUser,
	}
	if len(got) != len(want) {
		t.Fatalf("skills = %v, want %v", Names(list), want)
	}
	for name, src := range want {
		if got[name].Source != src {
			t.Errorf("%s source = %q, want %q", name, got[name].Source, src)
		}
	}
	if tools := got["pdf-tools"].AllowedTools; len(tools) != 2 || tools[1] != "Bash(pdftotext:*)" {
		t.Errorf("pdf-tools allowed-tools = %q", tools)
	}
	if tools := got["commit-msg"].AllowedTools; len(tools) != 2 {
		t.Errorf("commit-msg allowed-tools (list form) = %q", tools)
	}
	wantWarn := map[string]string{
		"no-frontmatter": "front matter",
		"bad-yaml":       "front matter:",
		"no-description": "lacks 'description'",
		"wrong-name":     "does not match folder name",
		"empty-folder":   "no SKILL.md",
		"Bad_Name":       "lowercase",
	}
	joined := ""
	for _, w := range warns {
		joined += w.String() + "\n"
		if strings.Contains(w.Message, "\n") {
			t.Errorf("warning is not one line: %q", w.Message)
		}
	}
	for dir, frag := range wantWarn {
		found := false
		for _, w := range warns {
			if filepath.Base(w.Path) == dir && strings.Contains(w.Message, frag) {
				found = true
			}
		}
		if !found {
			t.Errorf("no warning for %s containing %q in:\n%s", dir, frag, joined)
		}
	}
	if !strings.Contains(joined, "shadowed") {
		t.Errorf("no shadow warning in:\n%s", joined)
	}
}

// writeSkill writes a valid SKILL.md for name under root (a skills folder).
func writeSkill(t *testing.T, root, name, desc string) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "---\nname: " + name + "\ndescription: " + desc + "\n---\nbody\n"
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscover_WalksUpToRepoRootNearestShadows(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	cwd := filepath.Join(repo, "svc", "api")
	user := filepath.Join(base, "user")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(base, ".agents", "skills"), "above-repo", "beyond the repository root")
	writeSkill(t, filepath.Join(repo, ".agents", "skills"), "lint", "repo lint")
	writeSkill(t, filepath.Join(repo, ".hub", "skills"), "deploy", "repo deploy")
	writeSkill(t, filepath.Join(repo, "svc", ".agents", "skills"), "deploy", "svc deploy")
	writeSkill(t, filepath.Join(cwd, ".hub", "skills"), "lint", "api lint")
	writeSkill(t, filepath.Join(user, "skills"), "notes", "user notes")
	writeSkill(t, filepath.Join(user, "skills"), "lint", "user lint")

	tests := []struct {
		name, cwd string
		want      map[string]string // name -> description
	}{
		{name: "from a nested dir", cwd: cwd, want: map[string]string{"lint": "api lint", "deploy": "svc deploy", "notes": "user notes"}},
		{name: "from the middle", cwd: filepath.Join(repo, "svc"), want: map[string]string{"lint": "repo lint", "deploy": "svc deploy", "notes": "user notes"}},
		{name: "from the repo root", cwd: repo, want: map[string]string{"lint": "repo lint", "deploy": "repo deploy", "notes": "user notes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			list, warns := DiscoverTrusting(tc.cwd, user, true)
			got := map[string]string{}
			for _, s := range list {
				got[s.Name] = s.Description
			}
			if len(got) != len(tc.want) {
				t.Errorf("skills = %v, want %v", got, tc.want)
			}
			for n, d := range tc.want {
				if got[n] != d {
					t.Errorf("%s = %q, want %q (all: %v)", n, got[n], d, got)
				}
			}
			for _, w := range warns {
				if !strings.Contains(w.Message, "shadowed") {
					t.Errorf("unexpected warning %s", w)
				}
			}
			if _, err := Find(tc.cwd, user, "above-repo"); !errors.Is(err, ErrNotFound) {
				t.Errorf("a skill above the repository root was found: %v", err)
			}
		})
	}
}

func TestDiscover_MissingDirsAreFine(t *testing.T) {
	list, warns := Discover(t.TempDir(), t.TempDir())
	if len(list) != 0 || len(warns) != 0 {
		t.Fatalf("got %v %v", list, warns)
	}
}

func TestParse_Errors(t *testing.T) {
	cases := []struct {
		name, in string
	}{
		{"empty", ""},
		{"unclosed", "---\nname: a\n"},
		{"no name", "---\ndescription: d\n---\n"},
		{"bad tools", "---\nname: a\ndescription: d\nallowed-tools: {x: 1}\n---\n"},
		{"long name", "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n"},
		{"double hyphen", "---\nname: a--b\ndescription: d\n---\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Parse([]byte(c.in)); !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

func TestParse_CRLFAndBOM(t *testing.T) {
	s, err := Parse([]byte("\ufeff---\r\nname: x\r\ndescription: d\r\n---\r\nbody line\r\n"))
	if err != nil || s.Name != "x" || s.Body != "body line" {
		t.Fatalf("got %+v, %v", s, err)
	}
}

func TestRender_InlinesOnlyReferencedTextFiles(t *testing.T) {
	cwd, user := fixture(t)
	s, err := Find(cwd, user, "pdf-tools")
	if err != nil {
		t.Fatal(err)
	}
	out := s.Prompt("extract invoice.pdf")
	for _, want := range []string{"Apply the following Agent Skill", `<skill name="pdf-tools" folder="` + s.Dir + `">`, "Use `pdftotext`", `<file path="references/tables.md">`, "split columns", "extract invoice.pdf"} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"not referenced", "PNG", "logo.png\">"} {
		if strings.Contains(out, bad) {
			t.Errorf("prompt has %q:\n%s", bad, out)
		}
	}
	if !strings.HasSuffix(out, "\n\nextract invoice.pdf") {
		t.Errorf("args not at the end:\n%s", out)
	}
}

func TestSource_CommandsAndExpand(t *testing.T) {
	cwd, user := fixture(t)
	src := Source{UserDir: user}
	cmds := src.Commands(cwd)
	if len(cmds) != 3 || cmds[0].Name != "commit-msg" || cmds[0].Description == "" {
		t.Fatalf("commands = %+v", cmds)
	}
	p, ok := src.Expand(cwd, "review", "PR 12")
	if !ok || !strings.Contains(p, "- tests added") || !strings.HasSuffix(p, "PR 12") {
		t.Fatalf("expand = %v %q", ok, p)
	}
	p, ok = src.Expand(cwd, "review\nPR 13", "")
	if !ok || !strings.HasSuffix(p, "- errors wrapped\n</file>\n</skill>\n\nPR 13") {
		t.Fatalf("expand of /review followed by a newline = %v %q", ok, p)
	}
	if _, ok := src.Expand(cwd, "nope", ""); ok {
		t.Fatal("unknown skill expanded")
	}
	if _, err := Find(cwd, user, "nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "pdf-tools") {
		t.Fatalf("find err = %v", err)
	}
}

// PlaceTemp's cleanup removes the links and copies, never the skills' own
// folders; a skill asked for twice is placed once.
func TestPlaceTemp_CleanupLeavesTheSources(t *testing.T) {
	cwd, user := fixture(t)
	list, _ := Discover(cwd, user)
	root, cleanup, err := PlaceTemp(append(slices.Clone(list), list[0]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(SharedDir(root), "pdf-tools", "references", "tables.md")); err != nil {
		t.Fatalf("placed skill not readable: %v", err)
	}
	if err := cleanup(); err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if _, err := os.Stat(filepath.Join(s.Dir, FileName)); err != nil {
			t.Fatalf("cleanup removed the source of %s: %v", s.Name, err)
		}
	}
}

func TestPlaceTemp_AndInstructions(t *testing.T) {
	cwd, user := fixture(t)
	list, _ := Discover(cwd, user)
	dir, cleanup, err := PlaceTemp(list[:1])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	// Laid out as a project: claude loads <--add-dir>/.claude/skills.
	for _, sub := range []string{".claude/skills", ".agents/skills"} {
		if _, err := os.Stat(filepath.Join(dir, sub, list[0].Name, FileName)); err != nil {
			t.Fatal(err)
		}
	}
	_ = cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("temp dir left: %v", err)
	}
	ins := Instructions(list)
	if !strings.HasPrefix(ins, "The user enabled") || strings.Count(ins, "<skill ") != 3 {
		t.Fatalf("instructions:\n%s", ins)
	}
	if Instructions(nil) != "" {
		t.Fatal("empty instructions not empty")
	}
}

func TestParse_EmptyFrontMatterNamesTheMissingField(t *testing.T) {
	_, err := Parse([]byte("---\n---\nbody\n"))
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "lacks 'name'") {
		t.Fatalf("err = %v, want the missing name", err)
	}
}

func TestFind_MalformedSkillSaysWhy(t *testing.T) {
	cwd, user := fixture(t)
	_, err := Find(cwd, user, "no-description")
	if err == nil || !strings.Contains(err.Error(), "cannot be used") || !strings.Contains(err.Error(), "lacks 'description'") {
		t.Fatalf("err = %v", err)
	}
}

func TestPlaced_ReadsBackTheOriginalFolders(t *testing.T) {
	cwd, user := fixture(t)
	list, _ := Discover(cwd, user)
	root, cleanup, err := PlaceTemp(list)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cleanup() }()
	got, err := Placed(root)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(Names(got), ",") != strings.Join(Names(list), ",") {
		t.Fatalf("placed = %v, want %v", Names(got), Names(list))
	}
	for _, s := range got {
		if strings.HasPrefix(s.Dir, root) {
			t.Errorf("%s points into the temp dir %s, want its own folder", s.Name, s.Dir)
		}
	}
	if _, err := Placed(t.TempDir()); err == nil {
		t.Error("Placed on a dir PlaceTemp did not lay out: no error")
	}
}

// Names returns the skills' names, sorted.
func Names(list []Skill) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, s.Name)
	}
	sort.Strings(out)
	return out
}

// Wine's CreateSymbolicLinkW reports success and creates nothing; the
// skills must still be placed (as copies) and read back from their own
// folders.
func TestPlaceTemp_SymlinkThatMakesNothingFallsBackToCopies(t *testing.T) {
	old := symlink
	symlink = func(string, string) error { return nil }
	t.Cleanup(func() { symlink = old })
	cwd, user := fixture(t)
	list, _ := Discover(cwd, user)
	root, cleanup, err := PlaceTemp(list)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cleanup() }()
	for _, sub := range NativeDirs {
		if _, err := os.Stat(filepath.Join(root, sub, "pdf-tools", "references", "tables.md")); err != nil {
			t.Fatalf("skill not placed in %s: %v", sub, err)
		}
	}
	got, err := Placed(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, s := range list {
		want[s.Name] = s.Dir
	}
	if len(got) != len(list) {
		t.Fatalf("placed = %v, want %v", Names(got), Names(list))
	}
	for _, s := range got {
		if s.Dir != want[s.Name] {
			t.Errorf("%s read back from %s, want its own folder %s", s.Name, s.Dir, want[s.Name])
		}
	}
}
