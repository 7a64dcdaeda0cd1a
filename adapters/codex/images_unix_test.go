//go:build unix

package codex

import (
	"errors"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/safefile"
)

// An image whose path has a comma is copied; a FIFO there is refused at
// once: reading it would hold the prompt, with the session locked, until
// something writes to it.
func TestLocalImage_CommaPathFIFORefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "shot, final.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tempFile := func(name string) (string, error) { return filepath.Join(dir, name), nil }
	if _, err := localImage(fileuri.FromPath(runtime.GOOS, fifo), 0, tempFile); !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("err = %v, want a refusal of the FIFO", err)
	}
}
