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
// servers). Linux's Pdeathsig ends only the direct child, and fires when the
// *thread* that forked exits, which Go does not pin; macOS has none. So the
// supervisor runs in the agent's own process group and holds the read end of
// a pipe only hub writes: however hub ends (SIGKILL included), the kernel
// closes hub's end, the supervisor reads EOF and kills the whole group. EOF
// works alike on Linux and macOS, so macOS runs the code Linux tests run.
// When the agent exits, the supervisor reports its wait status and kills the
// group, itself included: no path out of it leaves the group alive.

// Arg0 is the argv[0] that makes a hub process a supervisor.
const Arg0 = "hub-supervise"

// init runs in every binary that links proc (hub and the tests). Go runs
// ready packages' inits in import path order; importing only os, os/signal
// and what they import (not fmt, io or os/exec), this one is ready after 21
// inits instead of 85, so an agent start does not pay for hub's tables,
// schemas and certificate pools (GODEBUG=inittrace=1).
func init() {
	if len(os.Args) >= 2 && os.Args[0] == Arg0 {
		// syscall.Exit, not os.Exit: nothing to flush, and a race-enabled test
		// binary would otherwise linger a second at exit.
		syscall.Exit(supervise(os.Args[1], os.Args[2:]))
	}
}

// The pipes from hub (ExtraFiles).
const (
	watchFD  = 3 // hub holds the write end for as long as it lives
	statusFD = 4 // the supervisor writes why the agent did not start
	resultFD = 5 // the supervisor writes the agent's wait status
)

// supervise returns (an exit code) only when the agent did not start;
// otherwise it kills the whole group, itself included, on every path.
// Exiting instead could leave the agent's children running when hub is gone:
// hub dying closes the agent's stdin, the agent exits, and the supervisor
// could see that before the watch pipe's EOF.
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

// waitAgent also reaps the orphans adoptOrphans brought, which would else
// stay zombies for as long as the agent runs.
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

// catchSignals makes the supervisor outlive the signals that end or stop a
// process: those sent to the group are for the agent, and none may end the
// supervisor before it kills the group. Caught, not ignored: an ignored
// signal stays ignored in the agent. Named, not all: catching every signal
// cost 1.4 ms per agent start, these 0.4 ms. SIGCHLD, SIGURG and SIGWINCH end
// nothing, and the runtime drops a SIGPROF that kill sent.
func catchSignals() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE,
		syscall.SIGALRM, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGVTALRM,
		syscall.SIGXCPU, syscall.SIGXFSZ, syscall.SIGIO, syscall.SIGABRT, syscall.SIGSYS, syscall.SIGTRAP, syscall.SIGILL,
		syscall.SIGBUS, syscall.SIGFPE, syscall.SIGSEGV)
}

// killGroup does not return.
func killGroup() {
	_ = syscall.Kill(0, syscall.SIGKILL)
	for {
		time.Sleep(time.Hour) // the signal is on its way
	}
}
