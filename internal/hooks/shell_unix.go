//go:build !windows

package hooks

import "github.com/hubdev/hub/internal/proc"

// ShellSpec runs command through the POSIX shell (/bin/sh -c): how hooks
// and checks run a command line the user wrote.
func ShellSpec(command string) proc.Spec {
	return proc.Spec{Path: "/bin/sh", Args: []string{"-c", command}}
}
