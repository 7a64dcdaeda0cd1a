package proc

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func touch(t *testing.T, p string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLookPath_PerOSRules(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	cmdShim := touch(t, filepath.Join(a, "claude.cmd"), 0o644) // Windows has no x bit
	touch(t, filepath.Join(a, "gemini.ps1"), 0o644)
	exe := touch(t, filepath.Join(b, "codex.exe"), 0o644)
	unixExec := touch(t, filepath.Join(b, "pi"), 0o755)
	touch(t, filepath.Join(a, "pi"), 0o644) // not executable: skipped on Unix
	tests := []struct {
		name, goos, bin, path, pathext, want string
	}{
		{"npm .cmd shim through PATHEXT", "windows", "claude", a + ";" + b, "", cmdShim},
		{"PATHEXT in any case", "windows", "codex", a + ";" + b, ".Exe;.Cmd", exe},
		{"a .ps1 is not a program", "windows", "gemini", a + ";" + b, ".COM;.EXE;.PS1", ""},
		{"name with its extension", "windows", "claude.cmd", a, "", cmdShim},
		{"unix needs the x bit", "linux", "pi", a + ":" + b, "", unixExec},
		{"unix ignores PATHEXT", "darwin", "claude", a, ".CMD", ""},
		{"windows PATH splits on ;", "windows", "codex", a + ":" + b, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.goos != "windows" && runtime.GOOS == "windows" && tt.want != "" {
				t.Skip("Windows files carry no executable bit, so a Unix program cannot be laid out here")
			}
			if got := LookPathFor(tt.goos, tt.bin, tt.path, tt.pathext); got != tt.want {
				t.Fatalf("LookPathFor = %q, want %q", got, tt.want)
			}
		})
	}
}

// A relative PATH entry ("." or node_modules/.bin) names the directory hub
// runs in, a cloned repository: its programs are never the agent CLI (hub
// doctor would run them for their version), as exec.LookPath refuses them.
func TestLookPath_SkipsRelativeDirs(t *testing.T) {
	repo := t.TempDir()
	t.Chdir(repo)
	for _, p := range []string{"claude", "claude.cmd", filepath.Join("node_modules", ".bin", "codex"), filepath.Join("node_modules", ".bin", "codex.cmd")} {
		touch(t, filepath.Join(repo, p), 0o755)
	}
	rel := filepath.Join("node_modules", ".bin")
	for _, goos := range []string{"linux", "darwin", "windows"} {
		sep := ListSep(goos)
		for _, path := range []string{".", rel, "." + sep + rel, sep + "." + sep} {
			for _, bin := range []string{"claude", "codex"} {
				if got := LookPathFor(goos, bin, path, ""); got != "" {
					t.Errorf("%s PATH=%q: LookPathFor(%s) = %q, want none", goos, path, bin, got)
				}
			}
			if got := scanPrograms(goos, []string{"claude", "codex"}, strings.Split(path, sep), ""); len(got) > 0 {
				t.Errorf("%s PATH=%q: scanPrograms = %v, want none", goos, path, got)
			}
		}
	}
}

func TestFindPrograms_SameAnswersAsLookPathPerName(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	touch(t, filepath.Join(a, "claude.cmd"), 0o644)
	touch(t, filepath.Join(a, "gemini.ps1"), 0o644)
	touch(t, filepath.Join(b, "CODEX.EXE"), 0o644)
	touch(t, filepath.Join(b, "pi"), 0o755)
	touch(t, filepath.Join(a, "pi"), 0o644) // not executable: b's wins on Unix
	touch(t, filepath.Join(a, "kilo"), 0o755)
	touch(t, filepath.Join(b, "kilo"), 0o755) // the first directory wins
	touch(t, filepath.Join(dir, "absent"), 0o755)
	touch(t, filepath.Join(dir, "absent.exe"), 0o755)
	t.Chdir(dir) // an empty PATH entry never finds a program in the working directory
	bins := []string{"claude", "gemini", "codex", "pi", "kilo", "absent"}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, pathext := range []string{"", ".Exe;.Cmd"} {
			got := scanPrograms(goos, bins, []string{a, "", b, a}, pathext)
			sep := map[bool]string{true: ";", false: ":"}[goos == "windows"]
			for _, bin := range bins {
				if want := LookPathFor(goos, bin, a+sep+sep+b+sep+a, pathext); got[bin] != want {
					t.Errorf("%s PATHEXT=%q %s: found %q, lookPath %q", goos, pathext, bin, got[bin], want)
				}
			}
		}
	}
}
