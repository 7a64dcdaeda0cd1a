//go:build windows

package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysState holds the agent's Job object. The job kills every process in it
// when its last handle closes; hub holds that handle, so the agent's whole
// tree ends with hub however hub ends. CREATE_NEW_PROCESS_GROUP lets a
// CTRL_BREAK_EVENT reach the agent alone for a graceful stop.
type sysState struct {
	mu  sync.Mutex
	job windows.Handle
}

// command resolves an npm .cmd shim to what it runs (see shim.go) and asks
// for a suspended start in a new console process group.
func (p *Process) command(path string) (*exec.Cmd, error) {
	argv := append([]string{path}, p.spec.Args...)
	if strings.EqualFold(filepath.Ext(path), ".cmd") {
		if body, err := os.ReadFile(path); err == nil {
			if a, ok := shimArgv(path, string(body), p.spec.Args, isFile, exec.LookPath); ok {
				argv = a
			}
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.spec.Dir
	cmd.Env = p.spec.Env
	cmdLine := p.spec.CmdLine
	if cmdLine == "" && isBatch(argv[0]) {
		cmdLine = batchCmdLine(argv)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED, CmdLine: cmdLine}
	return cmd, nil
}

func isBatch(path string) bool {
	return slices.Contains([]string{".cmd", ".bat"}, strings.ToLower(filepath.Ext(path)))
}

// batchCmdLine is argv as Go quotes it, but with the batch file's path
// always quoted: cmd.exe, which runs it, splits an unquoted command at
// ',', ';' and '=' too (C:\Users\Smith, J\x.cmd ran C:\Users\Smith).
func batchCmdLine(argv []string) string {
	line := `"` + argv[0] + `"`
	for _, a := range argv[1:] {
		line += " " + syscall.EscapeArg(a)
	}
	return line
}

// launch starts the process suspended, puts it in a kill-on-close job and
// only then lets it run, so no child it starts can escape the job.
func (p *Process) launch(start func() error) error {
	job, err := killOnCloseJob()
	if err != nil {
		return err
	}
	if err := start(); err != nil {
		_ = windows.CloseHandle(job)
		return err
	}
	pid := uint32(p.cmd.Process.Pid)
	if err := assign(job, pid); err != nil {
		_ = p.cmd.Process.Kill()
		_ = windows.CloseHandle(job)
		return fmt.Errorf("hold the agent in a job object: %w", err)
	}
	if err := resume(pid); err != nil {
		_ = windows.TerminateJobObject(job, 1)
		_ = windows.CloseHandle(job)
		return fmt.Errorf("resume the agent: %w", err)
	}
	p.sys.job = job
	return nil
}

func killOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return 0, fmt.Errorf("set kill-on-close on job object: %w", err)
	}
	return job, nil
}

func assign(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// resume resumes the threads of a process started suspended (Go keeps no
// handle to its main thread).
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := false
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		_ = windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed = true
	}
	if !resumed {
		return errors.New("no thread to resume")
	}
	return nil
}

// signalTree ends the job for SIGKILL; any other signal becomes a
// CTRL_BREAK_EVENT to the agent's console process group, which fails when
// hub has no console shared with it (then the grace period and the job's
// end follow).
func (p *Process) signalTree(sig syscall.Signal) error {
	p.sys.mu.Lock()
	defer p.sys.mu.Unlock()
	if p.sys.job == 0 {
		return nil
	}
	if sig == syscall.SIGKILL {
		return windows.TerminateJobObject(p.sys.job, 1)
	}
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.Pid()))
}

// killTree ends what is left in the job once the leader exited.
func (p *Process) killTree() {
	p.sys.mu.Lock()
	defer p.sys.mu.Unlock()
	if p.sys.job != 0 {
		_ = windows.TerminateJobObject(p.sys.job, 1)
		_ = windows.CloseHandle(p.sys.job)
		p.sys.job = 0
	}
}

func (p *Process) reap() error {
	err := p.cmd.Wait()
	p.status = exitStatus{code: p.cmd.ProcessState.ExitCode()}
	return err
}

// ExitSignal is "": Windows processes end with an exit code.
func (p *Process) ExitSignal() string { return "" }

type exitStatus struct {
	code int
}
