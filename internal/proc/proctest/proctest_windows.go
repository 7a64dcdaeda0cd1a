//go:build windows

package proctest

import (
	"errors"
	"testing"

	"golang.org/x/sys/windows"
)

// WaitGone waits, up to ten seconds, for process pid to exit.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return // no such process
	}
	if err != nil {
		t.Fatalf("open process %d: %v", pid, err)
	}
	defer windows.CloseHandle(h)
	if ev, err := windows.WaitForSingleObject(h, 10_000); ev != windows.WAIT_OBJECT_0 {
		t.Fatalf("process %d is still running (%v)", pid, err)
	}
}
