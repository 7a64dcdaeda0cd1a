//go:build unix

package permission

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO planted where git's files are (a tarball may hold one) is not
// opened: the open would wait for a writer, and hub with it.
func TestHardDeny_GitConfigFIFONotOpened(t *testing.T) {
	fakeHome(t)
	ws := t.TempDir()
	write(t, filepath.Join(ws, "inc", ".git", "config"), "[include]\n\tpath = fifo\n")
	write(t, filepath.Join(ws, "inc", ".git", "HEAD"), "ref: refs/heads/main\n")
	mkdirs(t, filepath.Join(ws, "inc", ".git", "objects"), filepath.Join(ws, "inc", ".git", "refs"), filepath.Join(ws, "dot"))
	for _, p := range []string{filepath.Join(ws, "inc", ".git", "fifo"), filepath.Join(ws, "dot", ".git")} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	for _, dir := range []string{"inc", "dot"} {
		if _, denied := HardDeny(shapeRequest("git status", filepath.Join(ws, dir))); denied {
			t.Errorf("git status in %s: denied", dir)
		}
	}
}
