package pi

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// With the project's extensions left out (--no-extensions), hub names the
// user's own again with -e: only those pi itself would load. An extension
// the user turned off in pi's settings ("-extensions/x.ts", "!pattern"),
// and what pi's discovery skips (a dot entry, node_modules, a folder of no
// index), ran or failed to load as an extension under hub, and the paths
// the settings name (from pi's folder, or ~) were left out (fails on
// 2334cdb).
func TestTrustArgs_UserExtensionsAsPiLoadsThem(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // os.UserHomeDir on Windows
	agentDir, cwd := t.TempDir(), t.TempDir()
	own := filepath.Join(agentDir, "extensions")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(cwd, ".pi", "extensions", "repo.ts"), "")
	for _, f := range []string{"on.ts", "off.ts", "globbed-off.js", "forced.ts", "dir/index.ts", "lib/helper.ts", ".hidden.ts", "node_modules/dep/index.js"} {
		write(filepath.Join(own, f), "")
	}
	write(filepath.Join(agentDir, "mine", "a,b.ts"), "")
	write(filepath.Join(home, "home.ts"), "")
	write(filepath.Join(agentDir, "settings.json"), `{"extensions": ["-extensions/off.ts", "!globbed-*", "!forced.ts", "+extensions/forced.ts", "mine/a,b.ts", "~/home.ts", "gone.ts"]}`)
	a := NewWithOptions(Options{Env: map[string]string{agentDirEnv: agentDir}})
	args, notice, err := a.trustArgs(adapters.SessionOptions{Cwd: cwd})
	if err != nil || notice == "" {
		t.Fatalf("trustArgs: %v, notice %q", err, notice)
	}
	want := []string{"--no-extensions"}
	for _, f := range []string{"dir", "forced.ts", "on.ts"} {
		want = append(want, "-e", filepath.Join(own, f))
	}
	want = append(want, "-e", filepath.Join(agentDir, "mine", "a,b.ts"), "-e", filepath.Join(home, "home.ts")) // the settings' own paths
	if !slices.Equal(args, want) {
		t.Errorf("args = %q\nwant %q", args, want)
	}
}

// A repository's skills, prompt templates and system prompt files are
// left out until trusted, each kind with pi's own switch, and the user's
// own named again; a context file linked out of the project leaves out
// pi's context files (fails on accb58c).
func TestTrustArgs_RepositoryInstructionsLeftOut(t *testing.T) {
	write := func(t *testing.T, path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name  string
		repo  []string // files of the repository
		own   []string // the user's, in pi's folder
		trust bool     // 'hub trust' first
		want  []string // args; agentDir/ and cwd/ are replaced
	}{
		{"nothing", nil, []string{"skills/mine/SKILL.md"}, false, nil},
		{"a skill", []string{".pi/skills/s/SKILL.md"}, []string{"skills/mine/SKILL.md", "skills/notes.txt"}, false,
			[]string{"--no-skills", "--skill", "agentDir/skills/mine"}},
		{"a skill of .agents", []string{".agents/skills/s/SKILL.md"}, nil, false, []string{"--no-skills"}},
		{"a prompt template", []string{".pi/prompts/p.md"}, []string{"prompts/mine.md"}, false,
			[]string{"--no-prompt-templates", "--prompt-template", "agentDir/prompts/mine.md"}},
		{"system prompts", []string{".pi/SYSTEM.md", ".pi/APPEND_SYSTEM.md"}, []string{"APPEND_SYSTEM.md"}, false,
			[]string{"--system-prompt", "", "--append-system-prompt", "agentDir/APPEND_SYSTEM.md"}},
		{"trusted", []string{".pi/skills/s/SKILL.md", ".pi/prompts/p.md", ".pi/SYSTEM.md"}, nil, true, nil},
		{"AGENTS.md linked out", []string{"AGENTS.md -> agentDir/secret"}, []string{"secret"}, false, []string{"--no-context-files"}},
		{"AGENTS.md linked in", []string{"AGENTS.md -> cwd/docs/guide.md", "docs/guide.md"}, nil, false, nil},
		// A linked SKILL.md, into the repository or out of it, is trusted by
		// the bytes pi reads through it; a linked skill folder never is.
		{"a SKILL.md linked out", []string{".pi/skills/s/SKILL.md -> agentDir/elsewhere.md"}, []string{"elsewhere.md"}, false, []string{"--no-skills"}},
		{"a SKILL.md linked out, trusted", []string{".pi/skills/s/SKILL.md -> agentDir/elsewhere.md"}, []string{"elsewhere.md"}, true, nil},
		{"a SKILL.md linked in, trusted", []string{".pi/skills/s/SKILL.md -> cwd/docs/skill.md", "docs/skill.md"}, nil, true, nil},
		{"a skill folder linked, trusted", []string{".pi/skills/s -> cwd/docs", "docs/SKILL.md"}, nil, true, []string{"--no-skills"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("USERPROFILE", home)
			agentDir, cwd := t.TempDir(), t.TempDir()
			expand := strings.NewReplacer("agentDir/", agentDir+string(filepath.Separator), "cwd/", cwd+string(filepath.Separator))
			for _, f := range tt.own {
				write(t, filepath.Join(agentDir, f), "x")
			}
			for _, f := range append(tt.repo, ".git/HEAD") {
				if name, target, ok := strings.Cut(f, " -> "); ok {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(cwd, name)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(filepath.FromSlash(expand.Replace(target)), filepath.Join(cwd, name)); err != nil {
						t.Skip("no symlinks:", err)
					}
					if fi, err := os.Lstat(filepath.Join(cwd, name)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
						t.Skip("os.Symlink made no link (Wine)")
					}
					continue
				}
				write(t, filepath.Join(cwd, f), "x")
			}
			if tt.trust {
				if err := config.TrustFiles(ProjectSettings(cwd)); err != nil {
					t.Fatal(err)
				}
			}
			a := NewWithOptions(Options{Env: map[string]string{agentDirEnv: agentDir}})
			args, notice, err := a.trustArgs(adapters.SessionOptions{Cwd: cwd})
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.FromSlash(expand.Replace(w)))
			}
			if err != nil || !slices.Equal(args, want) || (notice == "") != (len(want) == 0) {
				t.Errorf("trustArgs = %q, %q, %v\nwant %q", args, notice, err, want)
			}
		})
	}
}
