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
		{`\\.\unc\server\share`, `\\server\share`},
		{`\\.\pipe\x`, `\\.\pipe\x`},
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
	if _, err := os.Lstat(filepath.Join(root, "out")); errors.Is(err, os.ErrNotExist) {
		// TestResolve_WindowsLinksJudgedByTarget covers the rules without links.
		t.Skip("os.Symlink reported success but made no link: Wine's CreateSymbolicLinkW is a stub that returns TRUE " +
			"(https://gitlab.winehq.org/wine/wine/-/blob/wine-10.0/dlls/kernelbase/file.c)")
	}
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
	goos := runtime.GOOS // Linux runs macOS's rules on its own paths
	if !foldsCase(goos) {
		goos = "darwin"
	}
	got, err := Resolve(goos, root, strings.ToUpper(root)+"/Sub/x.go")
	if err != nil || got != filepath.Join(root, "Sub", "x.go") {
		t.Fatalf("got %q, %v; want it under %q", got, err, root)
	}
	if _, err := Resolve(goos, root, strings.ToUpper(root)+"x/a"); !errors.Is(err, ErrOutside) {
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

// winFS is a Windows file system in memory: existing names (lower case,
// as NTFS compares them) and links from a folder to its target.
type winFS struct {
	exists map[string]bool
	links  map[string]string
}

func winClean(p string) string {
	vol, names := SplitPath("windows", p)
	return vol + `\` + strings.Join(names, `\`)
}

func (w winFS) fileSystem() fileSystem {
	join := func(elem ...string) string {
		var parts []string
		for _, e := range elem {
			if e != "" {
				parts = append(parts, e)
			}
		}
		return winClean(strings.Join(parts, `\`))
	}
	dir := func(p string) string {
		vol, names := SplitPath("windows", p)
		if len(names) == 0 {
			return vol + `\`
		}
		return vol + `\` + strings.Join(names[:len(names)-1], `\`)
	}
	base := func(p string) string {
		_, names := SplitPath("windows", p)
		if len(names) == 0 {
			return ""
		}
		return names[len(names)-1]
	}
	// realPath follows links on every prefix, as GetFinalPathNameByHandle
	// does, and answers in the \\?\ form.
	realPath := func(p string) (string, error) {
		vol, names := SplitPath("windows", p)
		cur := vol + `\`
		for _, n := range names {
			cur = join(cur, n)
			if t, ok := w.links[strings.ToLower(cur)]; ok {
				cur = t
			}
			if !w.exists[strings.ToLower(cur)] {
				return "", os.ErrNotExist
			}
		}
		return `\\?\` + cur, nil
	}
	return fileSystem{
		exists: func(p string) bool {
			p = strings.ToLower(winClean(p))
			return w.exists[p] || w.links[p] != ""
		},
		realPath: realPath, clean: winClean, dir: dir, base: base, join: join,
	}
}

// A path on another share or drive is outside before the file system is
// asked: looking up \\attacker\share (a delegate's cwd, a tool's path an
// agent wrote) would send the user's NTLM hash to that host. Paths on the
// root's volume, in any spelling, are still resolved.
func TestResolve_OtherVolumeIsOutsideUnasked(t *testing.T) {
	root := `C:\Users\Ann\proj`
	w := winFS{exists: map[string]bool{`c:\`: true, `c:\users`: true, `c:\users\ann`: true, strings.ToLower(root): true}, links: map[string]string{}}
	for _, tt := range []struct {
		p      string
		inside bool
	}{
		{`\\attacker\share`, false},
		{`\\attacker\share\x`, false},
		{`//attacker/share/x`, false},
		{`\\?\UNC\attacker\share\x`, false},
		{`D:\x`, false},
		{`\\?\C:\Users\Ann\proj\x`, true},
		{`c:\users\ann\proj\x`, true},
		{`x`, true},
	} {
		var asked []string
		fs := w.fileSystem()
		exists := fs.exists
		fs.exists = func(p string) bool { asked = append(asked, p); return exists(p) }
		abs, err := JoinRoot("windows", root, tt.p)
		if err != nil {
			t.Fatalf("%q: %v", tt.p, err)
		}
		_, err = resolveIn(fs, "windows", root, tt.p, abs)
		if tt.inside != (err == nil) || (!tt.inside && len(asked) > 0) {
			t.Errorf("%q: %v after asking the file system about %q; want inside=%v, and nothing asked when outside", tt.p, err, asked, tt.inside)
		}
	}
}

// Wine cannot make links (TestResolve_LinksJudgedByTarget skips there), so
// the rules are checked on an in-memory Windows file system: a link is
// judged by its target, whatever the spelling of the path.
func TestResolve_WindowsLinksJudgedByTarget(t *testing.T) {
	root := `C:\Users\Ann\proj`
	w := winFS{
		exists: map[string]bool{},
		links: map[string]string{
			`c:\users\ann\proj\out`:      `D:\elsewhere`,
			`c:\users\ann\proj\in`:       `C:\Users\Ann\proj\real`,
			`c:\users\ann\proj\dangling`: `D:\elsewhere\missing`,
			`c:\users\ann\proj\sibling`:  `C:\Users\Ann\project2`,
		},
	}
	for _, p := range []string{`C:\`, `C:\Users`, `C:\Users\Ann`, root, root + `\real`, `D:\`, `D:\elsewhere`, `C:\Users\Ann\project2`} {
		w.exists[strings.ToLower(p)] = true
	}
	tests := []struct {
		p      string
		inside bool
	}{
		{`out\new\deeper\file.txt`, false},
		{`OUT/x`, false},
		{`real\..\out\x`, false},
		{`dangling`, false},
		{`sibling\x`, false},
		{`c:\USERS\ann\Proj\out\x`, false},
		{`\\?\C:\Users\Ann\proj\out`, false},
		{`/c/Users/Ann/proj/out/x`, false},
		{`\Users\Ann\proj\out\x`, false},
		{`in\new\file.txt`, true},
		{`IN/new.txt`, true},
		{`real\new.txt`, true},
		{`c:\USERS\ann\Proj\real\x`, true},
		{`/c/users/ann/proj/in/x`, true},
	}
	for _, tt := range tests {
		abs, err := JoinRoot("windows", root, tt.p)
		if err != nil {
			t.Fatalf("%q: %v", tt.p, err)
		}
		got, err := resolveIn(w.fileSystem(), "windows", root, tt.p, abs)
		if tt.inside != (err == nil) {
			t.Errorf("%q: got %q, %v; want inside=%v", tt.p, got, err, tt.inside)
		}
		if tt.inside && !strings.HasPrefix(got, root+`\`) {
			t.Errorf("%q resolved to %q, not spelled from %q", tt.p, got, root)
		}
	}
}
