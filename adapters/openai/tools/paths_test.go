package tools

import (
	"errors"
	"os"
	"path/filepath"
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
		if got := within(tt.goos, tt.root, tt.p); got != tt.want {
			t.Errorf("within(%s, %q, %q) = %v, want %v", tt.goos, tt.root, tt.p, got, tt.want)
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
		if got := relTo(tt.goos, tt.root, tt.p); got != tt.want {
			t.Errorf("relTo(%s, %q, %q) = %q, want %q", tt.goos, tt.root, tt.p, got, tt.want)
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
		{"windows", `C:\proj`, `C:x`, "", ErrBadArgs},
		{"windows", `C:\proj`, `C:`, "", ErrBadArgs},
		{"linux", `/r`, `a/b`, `/r/a/b`, nil},
		{"linux", `/`, `a`, `/a`, nil},
		{"linux", `/r`, `/etc`, `/etc`, nil},
		{"linux", `/r`, `C:x`, `/r/C:x`, nil},
		{"darwin", `/r`, `/c/x`, `/c/x`, nil},
	}
	for _, tt := range tests {
		got, err := joinRoot(tt.goos, tt.root, tt.p)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("joinRoot(%s, %q, %q) = %q, %v; want %q, %v", tt.goos, tt.root, tt.p, got, err, tt.want, tt.err)
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
	e := newTestEnv(t)
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(e.Root, "real"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(e.Root, "out")))
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
		if tt.inside && !within(hostOS, e.Root, got) {
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

func TestResolve_CaseFoldedPathSpelledFromRoot(t *testing.T) {
	e := newTestEnv(t)
	defer func(goos string) { hostOS = goos }(hostOS)
	hostOS = "darwin"
	got, err := e.Resolve(strings.ToUpper(e.Root) + "/Sub/x.go")
	if err != nil || got != filepath.Join(e.Root, "Sub", "x.go") {
		t.Fatalf("got %q, %v; want it under %q", got, err, e.Root)
	}
	if _, err := e.Resolve(strings.ToUpper(e.Root) + "x/a"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Fatalf("sibling with the root's name as prefix: %v", err)
	}
}
