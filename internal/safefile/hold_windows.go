//go:build windows

package safefile

import (
	"os"

	"golang.org/x/sys/windows"
)

func tryLock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, 1, 0, new(windows.Overlapped))
}

func unlock(f *os.File) {
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// links counts the names (NTFS hard links) of f; when it cannot tell, two,
// so that the caller does not write through a name it cannot count.
func links(f *os.File, _ os.FileInfo) uint64 {
	var d windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &d) != nil {
		return 2
	}
	return uint64(d.NumberOfLinks)
}
