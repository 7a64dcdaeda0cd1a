//go:build unix

package safefile

import (
	"path/filepath"
	"syscall"
	"testing"
)

// specialFiles returns a FIFO (nobody writes it: an open without
// O_NONBLOCK would block) and /dev/zero (endless).
func specialFiles(t *testing.T, dir string) map[string]string {
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"fifo": fifo, "dev-zero": "/dev/zero"}
}
