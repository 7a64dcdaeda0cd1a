package detect

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func envOf(m map[string]string) Env { return func(k string) string { return m[k] } }

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
			if got := lookPath(tt.goos, tt.bin, tt.path, tt.pathext); got != tt.want {
				t.Fatalf("lookPath = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoginShell_UsersShellElseOSDefault(t *testing.T) {
	tests := []struct {
		goos, shell, want string
	}{
		{"darwin", "", "/bin/zsh"},
		{"darwin", "/opt/homebrew/bin/fish", "/opt/homebrew/bin/fish"},
		{"linux", "", ""},
		{"linux", "/bin/bash", "/bin/bash"},
		{"windows", `C:\Program Files\Git\bin\bash.exe`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.goos+" "+tt.shell, func(t *testing.T) {
			if got := loginShell(tt.goos, envOf(map[string]string{"SHELL": tt.shell})); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHomeDir_UserProfileOnWindows(t *testing.T) {
	env := envOf(map[string]string{"USERPROFILE": `C:\Users\me`})
	if got := homeDir("windows", env); got != `C:\Users\me` {
		t.Fatalf("windows home %q", got)
	}
	if got := homeDir("linux", env); got != "" {
		t.Fatalf("linux home %q, want HOME only", got)
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
	bins := []string{"claude", "gemini", "codex", "pi", "kilo", "absent"}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, pathext := range []string{"", ".Exe;.Cmd"} {
			got := scanPrograms(goos, bins, []string{a, "", b}, pathext)
			sep := map[bool]string{true: ";", false: ":"}[goos == "windows"]
			for _, bin := range bins {
				if want := lookPath(goos, bin, a+sep+sep+b, pathext); got[bin] != want {
					t.Errorf("%s PATHEXT=%q %s: found %q, lookPath %q", goos, pathext, bin, got[bin], want)
				}
			}
		}
	}
}
