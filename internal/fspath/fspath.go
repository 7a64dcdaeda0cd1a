// Package fspath confines paths to a workspace by what they resolve to:
// links (symlinks, and junctions on Windows) are followed on the deepest
// existing ancestor, and names compare as the OS's file system does
// (case-folded on Windows and macOS, either slash and the \\?\ forms on
// Windows). The rules take goos as a parameter so Linux tests cover
// Windows and macOS.
package fspath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

var (
	ErrOutside = errors.New("path is outside the workspace")
	ErrBadPath = errors.New("invalid path")
)

// Resolve maps p (relative to root, or absolute) to an absolute path
// inside root, which must be absolute with its own links resolved
// (RealPath). A file about to be created is judged by the folder it lands
// in. The result is spelled from root, so rules and callers see one prefix
// whatever case or \\?\ form p used.
func Resolve(goos, root, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("%w: path is empty", ErrBadPath)
	}
	if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%w: %s (use a path inside %s)", ErrOutside, p, root)
	}
	abs, err := JoinRoot(goos, root, p)
	if err != nil {
		return "", err
	}
	return resolveIn(hostFS, goos, root, p, abs)
}

// fileSystem is what resolution asks the file system: whether a name
// exists (links not followed) and what an existing path really is.
type fileSystem struct {
	exists   func(p string) bool
	realPath func(p string) (string, error)
	clean    func(p string) string
	dir      func(p string) string
	base     func(p string) string
	join     func(elem ...string) string
}

var hostFS = fileSystem{
	exists:   func(p string) bool { _, err := os.Lstat(p); return err == nil },
	realPath: RealPath,
	clean:    filepath.Clean,
	dir:      filepath.Dir,
	base:     filepath.Base,
	join:     filepath.Join,
}

func resolveIn(fsys fileSystem, goos, root, p, abs string) (string, error) {
	if rv, _ := SplitPath(goos, root); goos == "windows" {
		// Another drive or share is outside, said before the file system
		// is asked: looking up \\host\share sends the user's NTLM hash there.
		if av, _ := SplitPath(goos, abs); !strings.EqualFold(av, rv) {
			return "", fmt.Errorf("%w: %s is on %s, outside %s", ErrOutside, p, av, root)
		}
	}
	real, err := fsys.evalDeepest(fsys.clean(abs))
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", p, err)
	}
	names, ok := relNames(goos, root, real)
	if !ok {
		return "", fmt.Errorf("%w: %s resolves to %s, outside %s", ErrOutside, p, real, root)
	}
	return fsys.join(append([]string{root}, names...)...), nil
}

func (fsys fileSystem) evalDeepest(abs string) (string, error) {
	existing, rest := abs, ""
	for !fsys.exists(existing) {
		parent := fsys.dir(existing)
		if parent == existing {
			break
		}
		rest = fsys.join(fsys.base(existing), rest)
		existing = parent
	}
	real, err := fsys.realPath(existing)
	if err != nil {
		return "", err
	}
	return fsys.join(real, rest), nil
}

// foldsCase reports whether goos's default file system ignores letter case
// (NTFS, and APFS as macOS formats it).
func foldsCase(goos string) bool { return goos == "windows" || goos == "darwin" }

// SplitPath cleans an absolute path by goos's rules into its volume ("C:",
// `\\server\share`, or "" off Windows) and its names.
func SplitPath(goos, p string) (vol string, names []string) {
	sep := "/"
	if goos == "windows" {
		vol, p = winVolume(p)
		sep = `\`
	}
	for _, n := range strings.Split(p, sep) {
		switch n {
		case "", ".":
		case "..":
			if len(names) > 0 {
				names = names[:len(names)-1]
			}
		default:
			names = append(names, n)
		}
	}
	return vol, names
}

// winVolume splits a Windows path into its volume and the rest, after
// turning slashes into backslashes and dropping the \\?\ and \\.\
// prefixes in front of a drive letter or UNC share.
func winVolume(p string) (vol, rest string) {
	p = stripLongPrefix(strings.ReplaceAll(p, "/", `\`))
	switch {
	case IsDrive(p):
		return strings.ToUpper(p[:1]) + ":", p[2:]
	case strings.HasPrefix(p, `\\`):
		// \\server\share, and also \\?\Volume{guid} or \\.\pipe.
		server, rest, ok := strings.Cut(p[2:], `\`)
		if !ok {
			return p, ""
		}
		share, rest, _ := strings.Cut(rest, `\`)
		return `\\` + server + `\` + share, rest
	}
	return "", p
}

// IsDrive says whether p starts with a drive letter and a colon (C:).
func IsDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// relNames returns p's names below root; false when p is outside.
func relNames(goos, root, p string) ([]string, bool) {
	rv, rn := SplitPath(goos, root)
	pv, pn := SplitPath(goos, p)
	same := func(a, b string) bool { return a == b || foldsCase(goos) && strings.EqualFold(a, b) }
	if !same(rv, pv) || len(pn) < len(rn) || !slices.EqualFunc(rn, pn[:len(rn)], same) {
		return nil, false
	}
	return pn[len(rn):], true
}

func Within(goos, root, p string) bool {
	_, ok := relNames(goos, root, p)
	return ok
}

// RelTo shows p relative to root with forward slashes ("." for root), or
// p itself when it is outside.
func RelTo(goos, root, p string) string {
	names, ok := relNames(goos, root, p)
	switch {
	case !ok:
		return p
	case len(names) == 0:
		return "."
	}
	return strings.Join(names, "/")
}

// JoinRoot makes p absolute against root under goos's rules. On Windows a
// path rooted without a drive (\x) takes root's drive, Git Bash's /c/x
// means C:\x, and a drive-relative path (C:x) is refused: it depends on
// a per-drive current folder hub does not have.
func JoinRoot(goos, root, p string) (string, error) {
	if goos != "windows" {
		if strings.HasPrefix(p, "/") {
			return p, nil
		}
		return strings.TrimSuffix(root, "/") + "/" + p, nil
	}
	vol, _ := winVolume(p)
	switch {
	case vol != "" && !strings.HasPrefix(p, `\\`) && !strings.HasPrefix(p, "//") && !isDriveAbs(p):
		return "", fmt.Errorf("%w: %s is relative to the current folder of drive %s; give a full path like %s\\%s or one relative to the workspace", ErrBadPath, p, vol, vol, p[2:])
	case vol != "":
		return p, nil
	case isMsysDrive(p):
		return strings.ToUpper(p[1:2]) + `:\` + strings.TrimPrefix(p[2:], "/"), nil
	case strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "/"):
		rootVol, _ := winVolume(root)
		return rootVol + p, nil
	}
	return strings.TrimRight(root, `\/`) + `\` + p, nil
}

func isDriveAbs(p string) bool {
	return IsDrive(p) && len(p) >= 3 && (p[2] == '\\' || p[2] == '/')
}

// isMsysDrive matches Git Bash's drive paths: /c or /c/...
func isMsysDrive(p string) bool {
	return len(p) >= 2 && p[0] == '/' && ('a' <= p[1]|0x20 && p[1]|0x20 <= 'z') && (len(p) == 2 || p[2] == '/')
}

// stripLongPrefix turns the \\?\ and \\.\ forms of final path names into
// the usual C:\x and \\server\share; Go adds the prefix back itself when a
// path is long.
func stripLongPrefix(p string) string {
	if len(p) < 4 || (p[:4] != `\\?\` && p[:4] != `\\.\`) {
		return p
	}
	switch {
	case len(p) >= 8 && strings.EqualFold(p[4:8], `UNC\`):
		return `\\` + p[8:]
	case IsDrive(p[4:]):
		return p[4:]
	}
	return p
}
