//go:build unix

package permission

import (
	"os"
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

// A FIFO swapped in between the check that a git file is regular and its
// open is never read: the open does not wait for a writer. A swapper
// flips a link between a file holding "x" and a FIFO, and opens the FIFO
// for writing whenever a reader waits on it (which ends that wait with
// nothing read): a read is "x" or an error, never an empty file.
func TestReadCapped_FIFOSwappedInNeverWaitedOn(t *testing.T) {
	dir := t.TempDir()
	reg, fifo, p := filepath.Join(dir, "reg"), filepath.Join(dir, "fifo"), filepath.Join(dir, "config")
	write(t, reg, "x")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	must(t, os.Symlink(reg, p))
	done, swapped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(swapped)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			tmp := filepath.Join(dir, "tmp")
			_ = os.Symlink([]string{reg, fifo}[i%2], tmp)
			_ = os.Rename(tmp, p)
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close() // a reader waited on the FIFO
			}
		}
	}()
	for i := 0; i < 20000; i++ {
		if b, err := readCapped(p, maxGitConfig); err == nil && string(b) != "x" {
			t.Errorf("read %d: %q from a FIFO, want an error", i, b)
			break
		}
	}
	close(done)
	<-swapped
}

// A repository git takes though its files are not the usual ones (git
// 2.39 runs its aliases): HEAD a symlink to refs/… that leads nowhere,
// objects or refs an executable file, a submodule's directory a symlink.
func TestHardDeny_GitDirAsGitTakesIt(t *testing.T) {
	fakeHome(t)
	ws := t.TempDir()
	evil := "[alias]\n\tx = !rm -rf ~\n[core]\n\tfsmonitor = rm -rf ~\n"
	for _, dir := range []string{"headlink", "objfile", "reffile", "super"} {
		write(t, filepath.Join(ws, dir, ".git", "HEAD"), "ref: refs/heads/main\n")
		mkdirs(t, filepath.Join(ws, dir, ".git", "objects"), filepath.Join(ws, dir, ".git", "refs"))
		write(t, filepath.Join(ws, dir, ".git", "config"), evil)
	}
	must(t, os.Remove(filepath.Join(ws, "headlink", ".git", "HEAD")))
	must(t, os.Symlink("refs/heads/main", filepath.Join(ws, "headlink", ".git", "HEAD")))
	for dir, name := range map[string]string{"objfile": "objects", "reffile": "refs"} {
		p := filepath.Join(ws, dir, ".git", name)
		must(t, os.Remove(p))
		must(t, os.WriteFile(p, nil, 0o700))
	}
	write(t, filepath.Join(ws, "super", ".git", "config"), "[core]\n\tbare = false\n")
	mkdirs(t, filepath.Join(ws, "super", ".git", "modules"))
	must(t, os.Rename(filepath.Join(ws, "objfile", ".git"), filepath.Join(ws, "elsewhere")))
	must(t, os.Symlink(filepath.Join(ws, "elsewhere"), filepath.Join(ws, "super", ".git", "modules", "m")))
	for _, tc := range []struct{ dir, cmd string }{
		{"headlink", "git x"}, {"headlink", "git status"}, {"reffile", "git x"}, {"super", "git status"},
	} {
		if _, denied := HardDeny(shapeRequest(tc.cmd, filepath.Join(ws, tc.dir))); !denied {
			t.Errorf("%q in %s: not denied", tc.cmd, tc.dir)
		}
	}
}
