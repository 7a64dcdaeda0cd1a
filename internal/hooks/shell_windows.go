//go:build windows

package hooks

import (
	"os"
	"path/filepath"

	"github.com/hubdev/hub/internal/proc"
)

// ShellSpec runs command through cmd.exe, given the command line as
// written: /s strips only the outer quotes, and Go's own argument quoting
// (backslash-escaped quotes) is not what cmd.exe reads.
func ShellSpec(command string) proc.Spec {
	return proc.Spec{Path: cmdExe(), Args: []string{"/d", "/s", "/c", command},
		CmdLine: `cmd.exe /d /s /c "` + command + `"`}
}

// cmdExe is the system's cmd.exe (%ComSpec%), so a hook runs whatever
// PATH holds; "cmd.exe" looked up in PATH when ComSpec names no file.
func cmdExe() string {
	if c := os.Getenv("ComSpec"); filepath.IsAbs(c) {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return "cmd.exe"
}
