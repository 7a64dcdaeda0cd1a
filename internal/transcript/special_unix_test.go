//go:build unix

package transcript

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO or a device where a session's file (or an old record) should be
// is no session, and every reader says so at once: a plain open of a FIFO
// nobody writes blocks, and /dev/zero never ends, so session/list, a
// session/load of that id and hub sessions list would hang on them.
func TestReaders_SpecialFileIsNoSession(t *testing.T) {
	special := map[string]func(t *testing.T, p string){
		"fifo": func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"dev-zero": func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		},
	}
	found := map[string]func(dir string) bool{
		"Read":   func(dir string) bool { recs, err := Read(dir, "s"); return err == nil || len(recs) > 0 },
		"Latest": func(dir string) bool { _, err := Latest(dir, "s"); return err == nil },
		"List":   func(dir string) bool { l, _ := List(dir); return len(l) > 0 },
	}
	for kind, mk := range special {
		for _, name := range []string{"s.jsonl", "s.json"} {
			for reader, finds := range found {
				t.Run(kind+"/"+name+"/"+reader, func(t *testing.T) {
					dir := t.TempDir()
					mk(t, filepath.Join(dir, name))
					if finds(dir) {
						t.Fatalf("%s found a session in %s %s", reader, kind, name)
					}
				})
			}
		}
	}
}
