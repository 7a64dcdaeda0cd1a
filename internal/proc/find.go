package proc

import (
	"cmp"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// The lookup rules take the OS as a parameter, so Linux tests cover the
// macOS and Windows ones.

func ListSep(goos string) string {
	if goos == "windows" {
		return ";"
	}
	return ":"
}

// LookPathFor finds bin in the directories of pathEnv as goos would run
// it: on Windows with each PATHEXT extension but .ps1 (CreateProcess does
// not start one), elsewhere an executable file. A relative directory of
// pathEnv is skipped.
func LookPathFor(goos, bin, pathEnv, pathext string) string {
	if strings.ContainsAny(bin, `/\`) {
		return findExec(goos, bin, pathext)
	}
	for _, dir := range strings.Split(pathEnv, ListSep(goos)) {
		if !filepath.IsAbs(dir) { // "." or node_modules/.bin: the repository's own, as exec.LookPath says (ErrDot)
			continue
		}
		if p := findExec(goos, filepath.Join(dir, bin), pathext); p != "" {
			return p
		}
	}
	return ""
}

// findExec returns p, or on Windows p with the first PATHEXT extension
// that exists, when that is a program; otherwise "".
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
	exts := strings.Split(strings.ToLower(cmp.Or(pathext, ".COM;.EXE;.BAT;.CMD")), ";")
	return slices.DeleteFunc(exts, func(e string) bool { return e == "" || e == ".ps1" })
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// FindProgramsFor resolves many bare program names at once, each as
// LookPathFor would over dirs in order: hub checks its whole catalogue of
// agents on every start, and most of them are not installed.
func FindProgramsFor(goos string, bins, dirs []string, pathext string) map[string]string {
	key := strings.Join([]string{goos, pathext, strings.Join(bins, "\x00"), strings.Join(dirs, "\x00")}, "\x01")
	foundMu.Lock()
	defer foundMu.Unlock()
	if m, ok := foundMemo[key]; ok {
		return m
	}
	m := scanPrograms(goos, bins, dirs, pathext)
	foundMemo[key] = m
	return m
}

// foundMemo lives as long as hub: the registry and doctor ask the same
// question within one command.
var (
	foundMu   sync.Mutex
	foundMemo = map[string]map[string]string{}
)

// scanPrograms stats each name in each directory on Unix, where a failed
// stat is about a microsecond and /usr/bin lists thousands of programs;
// Windows, whose stats are slow and take each PATHEXT extension, lists
// each directory once instead.
func scanPrograms(goos string, bins, dirs []string, pathext string) map[string]string {
	found := map[string]string{}
	if goos != "windows" {
		var uniq []string // PATH often repeats a directory, and the install dirs repeat PATH's
		for _, dir := range dirs {
			if filepath.IsAbs(dir) && !slices.Contains(uniq, dir) { // "" and "." too: the repository's own (ErrDot)
				uniq = append(uniq, dir)
			}
		}
		for _, b := range bins {
			for _, dir := range uniq {
				if p := findExec(goos, filepath.Join(dir, b), pathext); p != "" {
					found[b] = p
					break
				}
			}
		}
		return found
	}
	stem := func(name string) string {
		name = strings.ToLower(name)
		if ext := filepath.Ext(name); ext != "" && slices.Contains(winExts(pathext), ext) {
			return strings.TrimSuffix(name, ext)
		}
		return name
	}
	want := map[string]string{} // stem -> bin
	for _, b := range bins {
		want[stem(b)] = b
	}
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) || len(found) == len(want) {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			b, ok := want[stem(e.Name())]
			if !ok || found[b] != "" {
				continue
			}
			if p := findExec(goos, filepath.Join(dir, b), pathext); p != "" {
				found[b] = p
			}
		}
	}
	return found
}

// FindPrograms finds each of bins as hub would start it here: on PATH,
// then in the package managers' install dirs. Missing ones are absent
// from the result, which callers must not change.
func FindPrograms(bins []string) map[string]string {
	return FindProgramsFor(runtime.GOOS, bins, hereDirs(), os.Getenv("PATHEXT"))
}

// FindProgramsUncached is FindPrograms scanning again (for benchmarks).
func FindProgramsUncached(bins []string) map[string]string {
	return scanPrograms(runtime.GOOS, bins, hereDirs(), os.Getenv("PATHEXT"))
}

func hereDirs() []string {
	home, _ := os.UserHomeDir()
	return append(filepath.SplitList(os.Getenv("PATH")), KnownDirs(runtime.GOOS, os.Getenv, home)...)
}
