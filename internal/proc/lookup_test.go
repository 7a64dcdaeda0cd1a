package proc

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestKnownDirs_WherePackageManagersInstall(t *testing.T) {
	j := filepath.Join
	tests := []struct {
		name string
		goos string
		env  map[string]string
		want []string
	}{
		{"windows npm, pnpm, winget, scoop, bun", "windows",
			map[string]string{"APPDATA": "/r", "LOCALAPPDATA": "/l", "SCOOP": "/s"},
			[]string{j("/r", "npm"), j("/l", "pnpm"), j("/l", "Microsoft", "WinGet", "Links"), j("/s", "shims"), j("/h", "scoop", "shims"), j("/h", ".bun", "bin")}},
		{"macOS Homebrew first", "darwin", nil,
			[]string{"/opt/homebrew/bin", "/usr/local/bin", j("/h", ".local", "bin"), j("/h", ".npm-global", "bin"), j("/h", ".bun", "bin"), j("/h", ".volta", "bin")}},
		{"linux", "linux", nil,
			[]string{"/usr/local/bin", "/home/linuxbrew/.linuxbrew/bin", j("/h", ".local", "bin"), j("/h", ".npm-global", "bin"), j("/h", ".bun", "bin"), j("/h", ".volta", "bin")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KnownDirs(tt.goos, func(k string) string { return tt.env[k] }, "/h"); !slices.Equal(got, tt.want) {
				t.Fatalf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// An agent CLI in ~/.local/bin starts even when hub's PATH (an editor's)
// does not reach that directory.
func TestStart_FindsProgramInKnownDirOffPath(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, ".local", "bin")
	t.Setenv("HOME", home)
	t.Setenv("PATH", "/usr/bin:/bin")
	if runtime.GOOS == "windows" {
		bin = filepath.Join(home, "pnpm") // %LOCALAPPDATA%\pnpm
		t.Setenv("LOCALAPPDATA", home)
		t.Setenv("PATH", filepath.Join(os.Getenv("SystemRoot"), "System32"))
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	proctest.Install(t, bin, "hub-test-agent", "out:found\n")
	p, err := Start(context.Background(), Spec{Path: "hub-test-agent"})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer p.Stop()
	line, _ := bufio.NewReader(p.Stdout).ReadString('\n')
	if line != "found\n" {
		t.Fatalf("agent said %q", line)
	}
	if _, err := Start(context.Background(), Spec{Path: "hub-test-agent-missing"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing program: %v, want ErrNotFound", err)
	}
}
