//go:build !linux && !windows

package proctest

import "testing"

// WaitGone needs a pidfd (Linux) or a process handle (Windows).
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	t.Skipf("waiting for process %d needs Linux pidfds", pid)
}
