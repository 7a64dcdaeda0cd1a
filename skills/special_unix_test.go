//go:build unix

package skills

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A SKILL.md, or a file a skill references, that is a FIFO or a symlink
// to /dev/zero is skipped at once: never a hang or an endless read.
func TestDiscover_SpecialFilesFailAtOnce(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root := filepath.Join(t.TempDir(), ".hub", "skills")
	for _, name := range []string{"fifo", "zero", "refs"} {
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo", FileName), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(root, "zero", FileName)); err != nil {
		t.Fatal(err)
	}
	src := "---\nname: refs\ndescription: d\n---\nsee guide.md and zero.md\n"
	if err := os.WriteFile(filepath.Join(root, "refs", FileName), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "refs", "guide.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(root, "refs", "zero.md")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		cwd := filepath.Dir(filepath.Dir(root))
		list, warns := Discover(cwd, t.TempDir())
		if len(list) != 1 || len(warns) != 2 {
			t.Errorf("skills %v, warnings %v: want refs only, two warnings", Names(list), warns)
		}
		if len(list) == 1 {
			if files := list[0].ReferencedFiles(); len(files) != 0 {
				t.Errorf("special files inlined: %v", files)
			}
			_, undo, err := PlaceTemp(list)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("PlaceTemp: %v", err)
			}
			if undo != nil {
				_ = undo()
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang, not a timing assertion
		t.Fatal("discovery blocked on a special file")
	}
}
