//go:build !windows

package hooks

// shellCommand runs command through the POSIX shell.
func shellCommand(command string) (string, []string) { return "/bin/sh", []string{"-c", command} }
