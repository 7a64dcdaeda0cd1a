//go:build unix

package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// Files a run leaves that a reader could hang on or follow out of the
// tree (a FIFO, a link to one, a link outside) are listed, not read.
func TestRun_FilesChangedDoesNotFollowOrBlock(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir, outside := t.TempDir(), t.TempDir()
	git(t, dir, "init", "-q")
	fifo := filepath.Join(outside, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	script := func(_ context.Context, _ <-chan struct{}, out chan<- adapters.Event) {
		_ = os.Symlink(fifo, filepath.Join(dir, "to-fifo"))
		_ = os.Symlink("/etc/passwd", filepath.Join(dir, "to-passwd"))
		_ = syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600)
		out <- text("done")
		out <- done(adapters.StopEndTurn)
	}
	s, _, _ := runFake(t, context.Background(), &fakeAdapter{name: "fake", script: script}, func(o *Options) { o.Cwd = dir })
	got := map[string]string{}
	for _, c := range s.FilesChanged {
		got[c.Path] = c.Status
	}
	if got["to-fifo"] != "added" || got["to-passwd"] != "added" {
		t.Fatalf("filesChanged %+v", s.FilesChanged)
	}
}
