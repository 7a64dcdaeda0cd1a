//go:build windows

package fspath

import (
	"os"

	"golang.org/x/sys/windows"
)

// RealPath returns the final path of the existing p as Windows opens it:
// symlinks, junctions (which filepath.EvalSymlinks leaves alone since Go
// 1.23), 8.3 short names and mapped drives all resolved.
func RealPath(p string) (string, error) {
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return "", &os.PathError{Op: "open", Path: p, Err: err}
	}
	share := uint32(windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE)
	// Backup semantics lets CreateFile open folders too.
	h, err := windows.CreateFile(name, windows.FILE_READ_ATTRIBUTES, share, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return "", &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_PATH)
	for {
		// Flags 0: FILE_NAME_NORMALIZED with a drive-letter (DOS) volume.
		n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), 0)
		if err != nil {
			return "", &os.PathError{Op: "GetFinalPathNameByHandle", Path: p, Err: err}
		}
		if int(n) < len(buf) {
			return stripLongPrefix(windows.UTF16ToString(buf[:n])), nil
		}
		buf = make([]uint16, n)
	}
}
