//go:build !linux

package proctest

import "testing"

// WaitGone needs a pidfd, which only Linux has; tests run on Linux only.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	t.Skipf("waiting for process %d needs Linux pidfds", pid)
}
