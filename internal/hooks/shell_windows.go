//go:build windows

package hooks

import "github.com/hubdev/hub/internal/proc"

// shellSpec runs command through cmd.exe, given the command line as
// written: /s strips only the outer quotes, and Go's own argument quoting
// (backslash-escaped quotes) is not what cmd.exe reads.
func shellSpec(command string) proc.Spec {
	return proc.Spec{Path: "cmd.exe", Args: []string{"/d", "/s", "/c", command},
		CmdLine: `cmd.exe /d /s /c "` + command + `"`}
}
