//go:build unix

package supervise

import (
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// Why a supervisor: an agent CLI starts children of its own (shells, MCP
// servers, language servers). Linux's Pdeathsig ends only the direct child
// when hub dies, and it fires when the *thread* that forked exits, which Go
// does not pin; macOS has no Pdeathsig at all. So every agent runs under a
// supervisor in the agent's own process group: hub re-executes its own
// binary with argv[0] = Arg0, and the supervisor starts the agent,
// reports its exit status, and holds the read end of a pipe whose write end
// only hub holds. However hub ends (SIGKILL included), the kernel closes
// hub's descriptors, the supervisor reads EOF and kills the whole group,
// grandchildren included. Reading EOF works the same on Linux and macOS, so
// no kqueue NOTE_EXIT (macOS) or prctl (Linux) watch is needed; macOS runs
// the very code Linux tests run. When the agent exits, the supervisor
// writes its wait status to a pipe and kills the group, itself included,
// so no path out of the supervisor leaves the group alive.
//
// Arg0 is the argv[0] that makes a hub process a supervisor.
const Arg0 = "hub-supervise"

// init turns this process into a supervisor when hub started it as one.
// It runs in every binary that links proc (hub and the tests), before main
// and before the heavy package inits. Go initialises the packages that are
// ready in import path order, so every package sorted before this one runs
// its init first once it is ready: importing only os, os/signal and what
// they import (not fmt, io or os/exec, which wait for much more), this one
// is ready after 21 inits instead of 85, and an agent start does not pay
// for hub's tables, schemas and certificate pools (GODEBUG=inittrace=1).
func init() {
	if len(os.Args) >= 2 && os.Args[0] == Arg0 {
		// syscall.Exit, not os.Exit: nothing to flush, and a race-enabled test
		// binary would otherwise linger a second at exit.
		syscall.Exit(supervise(os.Args[1], os.Args[2:]))
	}
}

// The pipes from hub: ExtraFiles[0], [1] and [2].
const (
	watchFD  = 3 // hub holds the write end for as long as it lives
	statusFD = 4 // the supervisor writes why the agent did not start
	resultFD = 5 // the supervisor writes the agent's wait status
)

// supervise runs the agent in this process group. It returns (an exit
// code) only when the agent did not start; otherwise it ends by killing
// the whole group, itself included, on every path: the agent's exit (after
// reporting its status on resultFD) and hub's death. Exiting first would
// leave the agent's children running whenever hub is already gone: hub
// dying closes the agent's stdin, the agent exits, and the supervisor could
// see that before it saw the watch pipe close.
func supervise(path string, args []string) int {
	catchSignals()
	adoptOrphans()
	// Inherited descriptors lose close-on-exec; without it the agent's tree
	// would hold the status pipe open and hub would wait for it to end.
	for _, fd := range []int{watchFD, statusFD, resultFD} {
		syscall.CloseOnExec(fd)
	}
	watch := os.NewFile(watchFD, "hub-watch")
	status := os.NewFile(statusFD, "hub-status")
	result := os.NewFile(resultFD, "hub-result")
	agent, err := os.StartProcess(path, append([]string{path}, args...), &os.ProcAttr{Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		_, _ = status.WriteString(err.Error())
		return 127
	}
	_ = status.Close()
	// Hold no end of the agent's pipes, so hub sees EOF when the agent's
	// tree closes them, not when the supervisor exits.
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		_ = f.Close()
	}
	go func() {
		for buf := make([]byte, 64); ; {
			if _, err := watch.Read(buf); err != nil {
				_ = agent.Kill() // hub is gone: the agent's end below ends the rest
				return
			}
		}
	}()
	if ws, ok := waitAgent(agent.Pid); ok {
		_, _ = result.WriteString(strconv.FormatUint(uint64(uint32(ws)), 10))
	}
	killOrphans()
	killGroup()
	return 0
}

// waitAgent waits for the agent's exit, reaping on the way the orphans
// the supervisor adopted (adoptOrphans), which would else stay zombies
// for as long as the agent runs.
func waitAgent(pid int) (syscall.WaitStatus, bool) {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return 0, false
		case got == pid:
			return ws, true
		}
	}
}

// catchSignals makes the supervisor outlive the signals that end or stop
// a process: those sent to the group are for the agent (which may signal
// its own group at once), and none may end the supervisor before it kills
// the group; only SIGKILL can. Caught, not ignored: an ignored signal
// stays ignored in the agent. Named, not all: catching every signal added
// 1.4 ms to each agent start, these 0.4 ms. SIGCHLD, SIGURG and SIGWINCH
// end nothing, and the runtime drops a SIGPROF that kill sent.
func catchSignals() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE,
		syscall.SIGALRM, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGVTALRM,
		syscall.SIGXCPU, syscall.SIGXFSZ, syscall.SIGIO, syscall.SIGABRT, syscall.SIGSYS, syscall.SIGTRAP, syscall.SIGILL,
		syscall.SIGBUS, syscall.SIGFPE, syscall.SIGSEGV)
}

// killGroup SIGKILLs the supervisor's process group, the supervisor with
// it, and does not return.
func killGroup() {
	_ = syscall.Kill(0, syscall.SIGKILL)
	for {
		time.Sleep(time.Hour) // the signal is on its way
	}
}
