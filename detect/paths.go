package detect

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The lookup rules take the OS as a parameter, so Linux tests cover the
// macOS and Windows ones.

// homeDir is the user's home in the probed environment: HOME, else on
// Windows USERPROFILE.
func homeDir(goos string, env Env) string {
	if h := env("HOME"); h != "" || goos != "windows" {
		return h
	}
	return env("USERPROFILE")
}

// lookPath finds bin in the directories of pathEnv as goos would run it:
// on Windows with each PATHEXT extension (a .ps1 is not a program
// CreateProcess starts, so it never counts), elsewhere an executable file.
func lookPath(goos, bin, pathEnv, pathext string) string {
	if strings.ContainsAny(bin, `/\`) {
		return findExec(goos, bin, pathext)
	}
	sep := ":"
	if goos == "windows" {
		sep = ";"
	}
	for _, dir := range strings.Split(pathEnv, sep) {
		if dir == "" {
			continue
		}
		if p := findExec(goos, filepath.Join(dir, bin), pathext); p != "" {
			return p
		}
	}
	return ""
}

// findExec returns p, or on Windows p with the first PATHEXT extension
// that exists, when that is a program; "" otherwise.
func findExec(goos, p, pathext string) string {
	if goos != "windows" {
		if isExec(p) {
			abs, _ := filepath.Abs(p)
			return abs
		}
		return ""
	}
	exts := winExts(pathext)
	if ext := strings.ToLower(filepath.Ext(p)); ext != "" && slices.Contains(exts, ext) && isFile(p) {
		return p
	}
	for _, ext := range exts {
		if isFile(p + ext) {
			return p + ext
		}
	}
	return ""
}

// winExts are PATHEXT's extensions, lower case, without .ps1.
func winExts(pathext string) []string {
	if pathext == "" {
		pathext = ".COM;.EXE;.BAT;.CMD"
	}
	var exts []string
	for _, e := range strings.Split(strings.ToLower(pathext), ";") {
		if e != "" && e != ".ps1" {
			exts = append(exts, e)
		}
	}
	return exts
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// loginShell is the shell whose login PATH hub asks as a last resort: the
// user's $SHELL, else zsh on macOS (its default, which GUI apps may not
// have in $SHELL); none on Windows, nor on Linux without $SHELL.
func loginShell(goos string, env Env) string {
	switch {
	case goos == "windows":
		return ""
	case env("SHELL") != "":
		return env("SHELL")
	case goos == "darwin":
		return "/bin/zsh"
	default:
		return ""
	}
}
