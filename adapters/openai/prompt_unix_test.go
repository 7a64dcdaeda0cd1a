//go:build unix

package openai

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

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
