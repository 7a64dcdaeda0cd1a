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

// The debug log a user names (GEMINI_DEBUG_LOG_FILE) may be a FIFO: it is
// no log, read at once, instead of hanging the end of the turn that
// follows it.
func TestRetryLog_FIFOIsNoLog(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "debug.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	l := &retryLog{path: fifo}
	if got := l.read(); got != nil {
		t.Fatalf("notices %+v from a FIFO", got)
	}
}
