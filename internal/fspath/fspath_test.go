package fspath

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWithin_WindowsMacAndLinuxPaths(t *testing.T) {
	tests := []struct {
		goos, root, p string
		want          bool
	}{
		{"windows", `C:\proj`, `C:\proj`, true},
		{"windows", `C:\proj`, `C:\proj\a.txt`, true},
		{"windows", `C:\proj`, `c:\PROJ\Sub\a.txt`, true},
		{"windows", `C:\proj`, `C:/proj/sub/x`, true},
		{"windows", `C:\proj`, `\\?\C:\proj\x`, true},
		{"windows", `C:\proj`, `\\.\c:\proj\x`, true},
		{"windows", `\\?\C:\proj`, `C:\proj\x`, true},
		{"windows", `C:\proj\`, `C:\proj\x`, true},
		{"windows", `C:\`, `C:\anything\x`, true},
		{"windows", `C:\proj`, `D:\proj\x`, false},
		{"windows", `C:\proj`, `C:\project\x`, false},
		{"windows", `C:\proj`, `C:\proj\..\x`, false},
		{"windows", `C:\proj`, `C:\proj/../x`, false},
		{"windows", `C:\proj`, `C:\`, false},
		{"windows", `C:\proj`, `\\server\share\proj\x`, false},
		{"windows", `C:\proj`, `\\?\UNC\server\share\proj`, false},
		{"windows", `C:\proj`, `\\.\pipe\proj`, false},
		{"windows", `\\server\share\proj`, `\\SERVER\Share\proj\x`, true},
		{"windows", `\\server\share\proj`, `\\?\UNC\server\share\proj\x`, true},
		{"windows", `\\server\share\proj`, `//server/share/proj/x`, true},
		{"windows", `\\server\share\proj`, `\\server\other\proj\x`, false},
		{"windows", `\\server\share\proj`, `\\other\share\proj\x`, false},
		{"windows", `\\server\share\proj`, `C:\proj\x`, false},
		{"darwin", `/Users/A/Proj`, `/users/a/proj/x`, true},
		{"darwin", `/Users/A/Proj`, `/Users/A/Proj`, true},
		{"darwin", `/Users/A/Proj`, `/Users/A/Project/x`, false},
		{"darwin", `/Users/A/Proj`, `/Users/A/Proj/../Other`, false},
		{"linux", `/home/a/proj`, `/home/a/proj/x`, true},
		{"linux", `/home/a/proj`, `/home/a/proj`, true},
		{"linux", `/home/a/proj`, `/home/a/Proj/x`, false},
		{"linux", `/home/a/proj`, `/home/a/projx`, false},
		{"linux", `/home/a/proj`, `/home/a`, false},
		{"linux", `/`, `/etc/passwd`, true},
		{"linux", `/home/a/proj`, `C:\home\a\proj`, false},
	}
	for _, tt := range tests {
		if got := Within(tt.goos, tt.root, tt.p); got != tt.want {
			t.Errorf("Within(%s, %q, %q) = %v, want %v", tt.goos, tt.root, tt.p, got, tt.want)
		}
	}
}

func TestRelTo_ForwardSlashesOrUnchanged(t *testing.T) {
	tests := []struct{ goos, root, p, want string }{
		{"windows", `C:\proj`, `c:\proj\pkg\a.go`, "pkg/a.go"},
		{"windows", `C:\proj`, `\\?\C:\proj\pkg\a.go`, "pkg/a.go"},
		{"windows", `C:\proj`, `C:\proj`, "."},
		{"windows", `C:\proj`, `D:\x`, `D:\x`},
		{"darwin", `/Users/A/Proj`, `/users/a/proj/Sub/x`, "Sub/x"},
		{"linux", `/r`, `/r/a/b`, "a/b"},
		{"linux", `/r`, `/r`, "."},
		{"linux", `/r`, `/R/a`, `/R/a`},
	}
	for _, tt := range tests {
		if got := RelTo(tt.goos, tt.root, tt.p); got != tt.want {
			t.Errorf("RelTo(%s, %q, %q) = %q, want %q", tt.goos, tt.root, tt.p, got, tt.want)
		}
	}
}

func TestJoinRoot_AbsoluteRelativeAndDriveForms(t *testing.T) {
	tests := []struct {
		goos, root, p, want string
		err                 error
	}{
		{"windows", `C:\proj`, `a\b.txt`, `C:\proj\a\b.txt`, nil},
		{"windows", `C:\proj\`, `a/b.txt`, `C:\proj\a/b.txt`, nil},
		{"windows", `C:\proj`, `D:\x`, `D:\x`, nil},
		{"windows", `C:\proj`, `d:/x`, `d:/x`, nil},
		{"windows", `C:\proj`, `\x`, `C:\x`, nil},
		{"windows", `\\srv\sh\proj`, `\x`, `\\srv\sh\x`, nil},
		{"windows", `C:\proj`, `\\srv\sh\x`, `\\srv\sh\x`, nil},
		{"windows", `C:\proj`, `\\?\C:\proj\x`, `\\?\C:\proj\x`, nil},
		{"windows", `C:\proj`, `/c/Users/x`, `C:\Users/x`, nil},
		{"windows", `C:\proj`, `/d`, `D:\`, nil},
		{"windows", `C:\proj`, `C:x`, "", ErrBadPath},
		{"windows", `C:\proj`, `C:`, "", ErrBadPath},
		{"linux", `/r`, `a/b`, `/r/a/b`, nil},
		{"linux", `/`, `a`, `/a`, nil},
		{"linux", `/r`, `/etc`, `/etc`, nil},
		{"linux", `/r`, `C:x`, `/r/C:x`, nil},
		{"darwin", `/r`, `/c/x`, `/c/x`, nil},
	}
	for _, tt := range tests {
		got, err := JoinRoot(tt.goos, tt.root, tt.p)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("JoinRoot(%s, %q, %q) = %q, %v; want %q, %v", tt.goos, tt.root, tt.p, got, err, tt.want, tt.err)
		}
	}
}

func TestStripLongPrefix_FinalPathForms(t *testing.T) {
	tests := []struct{ in, want string }{
		{`\\?\C:\proj\x`, `C:\proj\x`},
		{`\\?\UNC\server\share\proj`, `\\server\share\proj`},
		{`\\?\Volume{0b1c}\x`, `\\?\Volume{0b1c}\x`},
		{`C:\x`, `C:\x`},
		{`/home/a`, `/home/a`},
	}
	for _, tt := range tests {
		if got := stripLongPrefix(tt.in); got != tt.want {
			t.Errorf("stripLongPrefix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResolve_LinksJudgedByTarget(t *testing.T) {
	root := realTemp(t)
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "real"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	must(t, os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "in")))
	must(t, os.Symlink(filepath.Join(outside, "missing"), filepath.Join(root, "dangling")))
	tests := []struct {
		p      string
		inside bool
	}{
		{"out/new/deeper/file.txt", false},
		{"real/../out/x", false},
		{"dangling", false},
		{"~/x", false},
		{filepath.Join(root, "out", "x"), false},
		{"in/new/file.txt", true},
		{"real/new.txt", true},
		{filepath.Join(root, "real", "x"), true},
	}
	for _, tt := range tests {
		got, err := Resolve(runtime.GOOS, root, tt.p)
		if tt.inside != (err == nil) {
			t.Errorf("%q: got %q, %v; want inside=%v", tt.p, got, err, tt.inside)
		}
		if tt.inside && !Within(runtime.GOOS, root, got) {
			t.Errorf("%q resolved to %q, outside %q", tt.p, got, root)
		}
	}
}

func TestResolve_CaseFoldedPathSpelledFromRoot(t *testing.T) {
	root := realTemp(t)
	got, err := Resolve("darwin", root, strings.ToUpper(root)+"/Sub/x.go")
	if err != nil || got != filepath.Join(root, "Sub", "x.go") {
		t.Fatalf("got %q, %v; want it under %q", got, err, root)
	}
	if _, err := Resolve("darwin", root, strings.ToUpper(root)+"x/a"); !errors.Is(err, ErrOutside) {
		t.Fatalf("sibling with the root's name as prefix: %v", err)
	}
}

func realTemp(t *testing.T) string {
	t.Helper()
	root, err := RealPath(t.TempDir())
	must(t, err)
	return root
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
