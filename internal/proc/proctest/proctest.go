//go:build linux

package proctest

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// WaitGone waits until pid has exited (a zombie counts as exited) and fails
// the test if it is still running after 10 s.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return
	}
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 10_000)
	for errors.Is(err, unix.EINTR) {
		n, err = unix.Poll(fds, 10_000)
	}
	if err != nil || n == 0 {
		t.Fatalf("process %d is still running (%v)", pid, err)
	}
}
