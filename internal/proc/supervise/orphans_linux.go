package supervise

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// adoptOrphans makes the supervisor the reaper of the agent's tree: a
// descendant that left the process group (a new session: node's detached
// spawn, a daemon) becomes its child, not init's, when its parent exits.
func adoptOrphans() {
	const prSetChildSubreaper = 36
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// killOrphans kills the supervisor's children (adopted once the agent is
// gone) and their process groups, reaping until none is left: a killed
// child's children are adopted in turn. A child is reaped only here, so its
// pid cannot have been reused when it is killed. One stuck in the kernel
// delays the group kill that follows by a second at most.
func killOrphans() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			killChildren()
			if _, err := syscall.Wait4(-1, nil, 0, nil); err != nil && err != syscall.EINTR {
				return // ECHILD: the tree is gone
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
}

func killChildren() {
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		for start, i := 0, 0; i <= len(b); i++ {
			if i < len(b) && b[i] != ' ' {
				continue
			}
			if pid, err := strconv.Atoi(string(b[start:i])); err == nil && pid > 1 {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			start = i + 1
		}
	}
}
