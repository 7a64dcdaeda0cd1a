//go:build unix

package gemini

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The workspace's .gemini/settings.json is the repository's: one that is a
// FIFO (or a link to a device) is no setting, read at once, instead of
// holding the agent's start until something writes to it.
func TestShellSettingFile_WorkspaceFIFOIsNoSetting(t *testing.T) {
	cwd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(cwd, ".gemini", "settings.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": t.TempDir(), "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(t.TempDir(), "settings.json")}
	if f := shellSettingFile(env, cwd); f != "" {
		t.Fatalf("setting file = %q, want none", f)
	}
}
