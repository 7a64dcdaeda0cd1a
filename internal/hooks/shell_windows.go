//go:build windows

package hooks

// shellCommand runs command through cmd.exe; /s keeps the command line
// as written between the outer quotes.
func shellCommand(command string) (string, []string) {
	return "cmd.exe", []string{"/d", "/s", "/c", command}
}
