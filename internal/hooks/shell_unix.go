//go:build !windows

package hooks

import "github.com/hubdev/hub/internal/proc"

// shellSpec runs command through the POSIX shell.
func shellSpec(command string) proc.Spec {
	return proc.Spec{Path: "/bin/sh", Args: []string{"-c", command}}
}
