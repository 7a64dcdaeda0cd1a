package tools

import (
	"fmt"
	"runtime"
	"strings"
)

// hostOS is the goos the path rules below follow at run time; the rules
// take goos as a parameter so Linux tests cover Windows and macOS.
var hostOS = runtime.GOOS

// foldsCase reports whether goos's default file system ignores letter case
// (NTFS, and APFS as macOS formats it).
func foldsCase(goos string) bool { return goos == "windows" || goos == "darwin" }

func sameName(goos, a, b string) bool {
	if foldsCase(goos) {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// splitPath cleans an absolute path by goos's rules and returns its volume
// ("C:", `\\server\share`, or "" off Windows) and its names, with "." and
// ".." applied.
func splitPath(goos, p string) (vol string, names []string) {
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
	p = strings.ReplaceAll(p, "/", `\`)
	for _, pre := range []string{`\\?\UNC\`, `\\.\UNC\`} {
		if len(p) >= len(pre) && strings.EqualFold(p[:len(pre)], pre) {
			p = `\\` + p[len(pre):]
		}
	}
	if (strings.HasPrefix(p, `\\?\`) || strings.HasPrefix(p, `\\.\`)) && isDrive(p[4:]) {
		p = p[4:]
	}
	switch {
	case isDrive(p):
		return strings.ToUpper(p[:1]) + ":", p[2:]
	case strings.HasPrefix(p, `\\`):
		// \\server\share, and also \\?\Volume{guid} or \\.\pipe.
		parts := strings.SplitN(p[2:], `\`, 3)
		if len(parts) < 2 {
			return p, ""
		}
		rest = ""
		if len(parts) == 3 {
			rest = parts[2]
		}
		return `\\` + parts[0] + `\` + parts[1], rest
	}
	return "", p
}

func isDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// relNames returns p's names below root, and whether p is root or inside it.
func relNames(goos, root, p string) ([]string, bool) {
	rv, rn := splitPath(goos, root)
	pv, pn := splitPath(goos, p)
	if !sameName(goos, rv, pv) {
		return nil, false
	}
	if len(pn) < len(rn) {
		return nil, false
	}
	for i := range rn {
		if !sameName(goos, rn[i], pn[i]) {
			return nil, false
		}
	}
	return pn[len(rn):], true
}

// within reports whether p is root or inside it under goos's path rules.
func within(goos, root, p string) bool {
	_, ok := relNames(goos, root, p)
	return ok
}

// relTo shows p relative to root with forward slashes ("." for root), or
// p itself when it is outside.
func relTo(goos, root, p string) string {
	names, ok := relNames(goos, root, p)
	switch {
	case !ok:
		return p
	case len(names) == 0:
		return "."
	}
	return strings.Join(names, "/")
}

// joinRoot makes p absolute against root under goos's rules. On Windows a
// path rooted without a drive (\x) takes root's drive, Git Bash's /c/x
// means C:\x, and a drive-relative path (C:x) is refused: it depends on
// a per-drive current folder the tools do not have.
func joinRoot(goos, root, p string) (string, error) {
	if goos != "windows" {
		if strings.HasPrefix(p, "/") {
			return p, nil
		}
		return strings.TrimSuffix(root, "/") + "/" + p, nil
	}
	vol, _ := winVolume(p)
	switch {
	case vol != "" && !strings.HasPrefix(p, `\\`) && !strings.HasPrefix(p, "//") && !isDriveAbs(p):
		return "", fmt.Errorf("%w: %s is relative to the current folder of drive %s; give a full path like %s\\%s or one relative to the workspace", ErrBadArgs, p, vol, vol, p[2:])
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
	return isDrive(p) && len(p) >= 3 && (p[2] == '\\' || p[2] == '/')
}

// isMsysDrive matches Git Bash's drive paths: /c or /c/...
func isMsysDrive(p string) bool {
	return len(p) >= 2 && p[0] == '/' && ('a' <= p[1]|0x20 && p[1]|0x20 <= 'z') && (len(p) == 2 || p[2] == '/')
}

// stripLongPrefix turns the \\?\C:\x and \\?\UNC\server\share forms that
// Windows returns for final path names into the usual C:\x and
// \\server\share; Go adds the prefix back itself when a path is long.
func stripLongPrefix(p string) string {
	switch {
	case len(p) >= 8 && strings.EqualFold(p[:8], `\\?\UNC\`):
		return `\\` + p[8:]
	case strings.HasPrefix(p, `\\?\`) && isDrive(p[4:]):
		return p[4:]
	}
	return p
}
