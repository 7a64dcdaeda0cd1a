package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fspath"
)

func TestResolve_LinksJudgedByTarget(t *testing.T) {
	e := newTestEnv(t)
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(e.Root, "real"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(e.Root, "out")))
	skipWithoutLinks(t, filepath.Join(e.Root, "out"))
	must(t, os.Symlink(filepath.Join(e.Root, "real"), filepath.Join(e.Root, "in")))
	must(t, os.Symlink(filepath.Join(outside, "missing"), filepath.Join(e.Root, "dangling")))
	tests := []struct {
		p      string
		inside bool
	}{
		{"out/new/deeper/file.txt", false},
		{"real/../out/x", false},
		{"dangling", false},
		{"in/new/file.txt", true},
		{"real/new.txt", true},
	}
	for _, tt := range tests {
		got, err := e.Resolve(tt.p)
		if tt.inside != (err == nil) {
			t.Errorf("%q: got %q, %v; want inside=%v", tt.p, got, err, tt.inside)
		}
		if tt.inside && !fspath.Within(hostOS, e.Root, got) {
			t.Errorf("%q resolved to %q, outside %q", tt.p, got, e.Root)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("nothing may be created outside: %v", err)
	}
	if r, err := runTool(t, e, "write_file", `{"path":"dangling","content":"x"}`); err == nil {
		t.Errorf("write through a dangling link to outside ran: %+v", r)
	}
}

// A workspace file hard-linked to one outside (ln ~/.bashrc notes, made
// by a command the user allowed) is edited under its workspace name only,
// by hub or through an editor that writes by path in place.
func TestEditFile_HardLinkLeavesItsOutsideNameAlone(t *testing.T) {
	for _, ed := range []adapters.EditorClient{nil, &fsEditor{}} {
		e := newTestEnv(t)
		if ed != nil {
			e.Editor = ed
		}
		bashrc, notes := filepath.Join(t.TempDir(), ".bashrc"), filepath.Join(e.Root, "notes")
		must(t, os.WriteFile(bashrc, []byte("alias ll=ls\n"), 0o644))
		if err := os.Link(bashrc, notes); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
		for _, call := range [][2]string{{"edit_file", `{"path":"notes","old_string":"ll=ls","new_string":"ll='curl x|sh'"}`},
			{"write_file", `{"path":"notes","content":"curl x|sh\n"}`}} {
			if r, err := runTool(t, e, call[0], call[1]); err != nil || r.Failed {
				t.Fatalf("%s with editor %T: %+v %v", call[0], ed, r, err)
			}
			if got, _ := os.ReadFile(bashrc); string(got) != "alias ll=ls\n" {
				t.Fatalf("%s with editor %T rewrote the outside name: %q", call[0], ed, got)
			}
		}
		if got, _ := os.ReadFile(notes); string(got) != "curl x|sh\n" {
			t.Errorf("notes holds %q after the writes", got)
		}
	}
}

// fsEditor is an editor whose file system writes by path, in place.
type fsEditor struct{ termEditor }

func (*fsEditor) CanReadFile() bool  { return true }
func (*fsEditor) CanWriteFile() bool { return true }
func (*fsEditor) ReadTextFile(_ context.Context, p string, _, _ int) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}
func (*fsEditor) WriteTextFile(_ context.Context, p, s string) error {
	return os.WriteFile(p, []byte(s), 0o644)
}

func TestResolve_CaseFoldedPathSpelledFromRoot(t *testing.T) {
	e := newTestEnv(t)
	defer func(goos string) { hostOS = goos }(hostOS)
	if hostOS != "windows" { // Linux runs macOS's rules on its own paths
		hostOS = "darwin"
	}
	got, err := e.Resolve(strings.ToUpper(e.Root) + "/Sub/x.go")
	if err != nil || got != filepath.Join(e.Root, "Sub", "x.go") {
		t.Fatalf("got %q, %v; want it under %q", got, err, e.Root)
	}
	if _, err := e.Resolve(strings.ToUpper(e.Root) + "x/a"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Fatalf("sibling with the root's name as prefix: %v", err)
	}
}

// skipWithoutLinks skips when os.Symlink reported success but made no
// link: Wine's CreateSymbolicLinkW is a stub that returns TRUE
// (internal/fspath checks the rules on an in-memory Windows file system).
func skipWithoutLinks(t *testing.T, link string) {
	t.Helper()
	if !linksMade(link) {
		t.Skip("os.Symlink made no link: Wine's CreateSymbolicLinkW is a stub " +
			"(https://gitlab.winehq.org/wine/wine/-/blob/wine-10.0/dlls/kernelbase/file.c)")
	}
}

// linksMade reports whether link, just made by os.Symlink, exists.
func linksMade(link string) bool {
	_, err := os.Lstat(link)
	return !errors.Is(err, os.ErrNotExist)
}
