package supervise

import (
	"os"
	"strconv"
	"syscall"
)

// adoptOrphans makes the supervisor the reaper of the agent's tree: a
// descendant that left the process group (a new session: node's detached
// spawn, a daemon) becomes its child, not init's, when its parent exits.
func adoptOrphans() {
	const prSetChildSubreaper = 36
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// killOrphans kills the children the supervisor adopted, and the process
// group each leads, once the agent is gone; the group kill that follows
// ends those that stayed in the agent's group.
func killOrphans() {
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
