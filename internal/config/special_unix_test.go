//go:build unix

package config

import (
	"os"
	"syscall"
	"testing"
)

// makeSpecial makes path a FIFO nobody writes ("fifo") or a symlink to
// /dev/zero ("dev-zero").
func makeSpecial(t *testing.T, kind, path string) {
	t.Helper()
	var err error
	if kind == "fifo" {
		err = syscall.Mkfifo(path, 0o600)
	} else {
		err = os.Symlink("/dev/zero", path)
	}
	if err != nil {
		t.Fatal(err)
	}
}
