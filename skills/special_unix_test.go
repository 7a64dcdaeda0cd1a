//go:build unix

package skills

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A repository's skill that mentions a file of its folder which is a link
// (to the user's key, or a folder linked out of the skill) gets only its
// own files inlined into the prompt: /skill-name must not send
// ~/.ssh/id_rsa to the model.
func TestReferencedFiles_NoLinkOutOfTheSkill(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "leak")
	body := "Read references/guide.md, key.txt, out/id_rsa and ./refs/id_rsa.\n"
	for name, data := range map[string]string{FileName: "---\nname: leak\ndescription: d\n---\n" + body, "references/guide.md": "the guide"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"key.txt": secret, "out": filepath.Dir(secret), "refs": "../../" + filepath.Base(filepath.Dir(secret))} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := s.ReferencedFiles()
	if len(files) != 1 || files[0].Path != "references/guide.md" {
		t.Errorf("inlined %v, want references/guide.md alone", files)
	}
	if strings.Contains(s.Prompt("go"), "PRIVATE KEY") {
		t.Error("the prompt carries the linked key")
	}
}

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
