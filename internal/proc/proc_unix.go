//go:build unix

package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/hubdev/hub/internal/proc/supervise"
)

// sysState holds hub's ends of the supervisor's pipes. watch stays open,
// unread and unwritten, while the agent runs: the kernel closes a dead hub's
// descriptors, which is the supervisor's signal.
type sysState struct {
	watch  *os.File
	status *os.File // whether the agent started
	result *os.File // the agent's wait status
}

// supervisorExe is the binary to re-execute: on Linux /proc/self/exe,
// which still works when the installed binary was replaced or deleted
// while hub runs (an upgrade); elsewhere os.Executable.
func supervisorExe() (string, error) {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find hub's own binary to supervise agents: %w", err)
	}
	return exe, nil
}

// command returns the supervisor command that runs path with the spec's
// arguments in a new process group.
func (p *Process) command(path string) (*exec.Cmd, error) {
	exe, err := supervisorExe()
	if err != nil {
		return nil, err
	}
	ps, err := pipes(3)
	if err != nil {
		return nil, err
	}
	watchR, watchW, statusR, statusW, resultR, resultW := ps[0], ps[1], ps[2], ps[3], ps[4], ps[5]
	cmd := exec.Command(exe)
	cmd.Args = append([]string{supervise.Arg0, path}, p.spec.Args...)
	cmd.Dir = p.spec.Dir
	cmd.Env = p.spec.Env
	cmd.ExtraFiles = []*os.File{watchR, statusW, resultW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.sys = sysState{watch: watchW, status: statusR, result: resultR}
	return cmd, nil
}

// launch runs start (which starts p.cmd) and waits for the supervisor to
// report that the agent started; an agent that cannot be executed fails
// here, as a direct start would.
func (p *Process) launch(start func() error) error {
	err := start()
	closeAll(p.cmd.ExtraFiles...)
	defer p.sys.status.Close()
	if err != nil {
		closeAll(p.sys.watch, p.sys.result)
		return err
	}
	msg, _ := io.ReadAll(p.sys.status)
	if len(msg) == 0 {
		return nil
	}
	_ = p.cmd.Wait()
	closeAll(p.sys.watch, p.sys.result)
	return errors.New(string(msg))
}

// reap waits for the supervisor and returns how the agent ended: the
// status the supervisor reported before killing its group, or the
// supervisor's own when it was killed first (Stop's SIGKILL).
func (p *Process) reap() error {
	err := p.cmd.Wait()
	b, _ := io.ReadAll(p.sys.result)
	_ = p.sys.result.Close()
	n, perr := strconv.ParseUint(string(b), 10, 32)
	if perr != nil {
		p.status = statusOf(p.cmd.ProcessState.Sys().(syscall.WaitStatus))
		return err
	}
	p.status = statusOf(syscall.WaitStatus(n))
	return p.status.err()
}

func statusOf(ws syscall.WaitStatus) exitStatus {
	if ws.Signaled() {
		return exitStatus{code: -1, signal: ws.Signal()}
	}
	return exitStatus{code: ws.ExitStatus()}
}

func (p *Process) signalTree(sig syscall.Signal) error {
	if err := syscall.Kill(-p.Pid(), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// killTree kills what is left of the group once its leader has been reaped,
// and releases the watch pipe.
func (p *Process) killTree() {
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	_ = p.sys.watch.Close()
}

// ExitSignal names the signal that ended the process ("SIGTERM"), or ""
// while it runs or when it exited on its own.
func (p *Process) ExitSignal() string {
	if !p.Exited() || p.status.signal == 0 {
		return ""
	}
	return "SIG" + strings.ToUpper(strings.TrimPrefix(unix.SignalName(p.status.signal), "SIG"))
}

// exitStatus: code is -1 when signal killed the agent.
type exitStatus struct {
	code   int
	signal syscall.Signal
}

// err is what exec's Wait would have returned for this status.
func (s exitStatus) err() error {
	switch {
	case s.signal != 0:
		return fmt.Errorf("signal: %v", s.signal)
	case s.code != 0:
		return fmt.Errorf("exit status %d", s.code)
	}
	return nil
}
