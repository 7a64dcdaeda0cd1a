//go:build unix

package proc

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// A start that runs out of descriptors for the agent's stdio, after the
// supervisor's pipes were opened, closes those too: hub keeps running
// near its descriptor limit and must not lose six more at every retry.
func TestStart_OutOfDescriptorsLeavesNoneOpen(t *testing.T) {
	if os.Getenv("HUB_PROC_FDLIMIT") == "1" {
		startAtTheLimit(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStart_OutOfDescriptorsLeavesNoneOpen$")
	cmd.Env = append(os.Environ(), "HUB_PROC_FDLIMIT=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// startAtTheLimit runs in a process of its own, as it lowers the limit.
func startAtTheLimit(t *testing.T) {
	open := func() []int {
		es, err := os.ReadDir("/dev/fd")
		if err != nil {
			t.Skip("no /dev/fd here")
		}
		var fds []int
		for _, e := range es {
			fd, _ := strconv.Atoi(e.Name())
			fds = append(fds, fd)
		}
		return fds
	}
	r, w, err := os.Pipe() // the poller's own descriptors open now, not mid-test
	if err != nil {
		t.Fatal(err)
	}
	closeAll(r, w)
	before := open()
	// A limit leaving eight free numbers below it (the listing's own is
	// free again; one inherited above it stays open): room for the
	// supervisor's three pipes and one more, so the stdio pipes fail.
	n := 0
	for free := 1; free < 8; n++ {
		if !slices.Contains(before, n) {
			free++
		}
	}
	lim := syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("cannot lower the descriptor limit: %v", err)
	}
	for range 3 {
		if p, err := Start(context.Background(), Spec{Path: os.Args[0], Args: []string{"-test.run=^$"}}); err == nil {
			_ = p.StopWithin(0)
			t.Fatal("started with no descriptors left for its stdio")
		}
	}
	if after := open(); !slices.Equal(after, before) {
		t.Fatalf("descriptors open after the failed starts: %v, before: %v", after, before)
	}
}
