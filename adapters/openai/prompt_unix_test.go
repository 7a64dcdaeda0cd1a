//go:build unix

package openai

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The native loop puts AGENTS.md into the system prompt unasked: a
// repository's AGENTS.md linked out of the repository (to ~/.ssh/id_rsa,
// or through a linked folder) is skipped, not sent to the model past the
// gate that asks for every secret read; a link inside it (CLAUDE.md ->
// AGENTS.md, as repositories ship) is followed.
func TestProjectInstructions_LinkOutOfTheRepositorySkipped(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		links map[string]string // name in the repository -> target
		want  string
	}{
		{"file out", map[string]string{"AGENTS.md": secret}, ""},
		{"folder out", map[string]string{"docs": filepath.Dir(secret), "AGENTS.md": "docs/id_rsa"}, ""},
		{"inside", map[string]string{"AGENTS.md": "docs/GUIDE.md"}, "be brief"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "repo")
			if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if _, out := tt.links["docs"]; !out {
				if err := os.MkdirAll(filepath.Join(repo, "docs"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(repo, "docs", "GUIDE.md"), []byte("be brief"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.name == "file out" { // and again as a relative link, from CLAUDE.md
				rel, err := filepath.Rel(repo, secret)
				if err != nil {
					t.Fatal(err)
				}
				tt.links["CLAUDE.md"] = rel
			}
			for name, target := range tt.links {
				if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
					t.Fatal(err)
				}
			}
			if _, text := projectInstructions(repo); text != tt.want {
				t.Errorf("projectInstructions = %q, want %q", text, tt.want)
			}
		})
	}
}

// An AGENTS.md that is a FIFO or a symlink to /dev/zero is skipped at
// once (the next candidate is used): never a hang or an endless read.
func TestProjectInstructions_SpecialFilesSkipped(t *testing.T) {
	for _, kind := range []string{"fifo", "dev-zero"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			agents := filepath.Join(dir, "AGENTS.md")
			var err error
			if kind == "fifo" {
				err = syscall.Mkfifo(agents, 0o600)
			} else {
				err = os.Symlink("/dev/zero", agents)
			}
			if err != nil {
				t.Fatal(err)
			}
			claude := filepath.Join(dir, "CLAUDE.md")
			if err := os.WriteFile(claude, []byte("be brief"), 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan [2]string, 1)
			go func() { f, text := projectInstructions(dir); done <- [2]string{f, text} }()
			select {
			case got := <-done:
				if got != [2]string{claude, "be brief"} {
					t.Errorf("projectInstructions = %q, want CLAUDE.md's text", got)
				}
			case <-time.After(30 * time.Second): // a hang, not a timing assertion
				t.Fatal("projectInstructions blocked on AGENTS.md")
			}
		})
	}
}
