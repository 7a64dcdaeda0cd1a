// Package proc supervises agent processes: piped stdio, stderr kept in a
// bounded ring for error messages, and a Stop that signals the whole process
// tree, waits a grace period, then kills and reaps. No child outlives Stop or
// hub, however hub ends:
//
//   - Unix: the agent runs in its own process group under a small supervisor
//     (hub re-executed; see package supervise) that kills the group when
//     hub's end of a pipe closes.
//   - Windows: the agent's tree runs in a Job object that kills it when the
//     job's last handle, held by hub, closes (see proc_windows.go).
package proc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/internal/trace"
)

var (
	ErrNotFound = errors.New("program not found")
	ErrBadDir   = errors.New("bad working directory")
	// ErrStopping means StopAll, or a StopUnder of the start's directory,
	// is under way: hub is ending the processes that would run with it.
	ErrStopping = errors.New("hub is stopping its agent processes")
)

// DefaultGrace is how long Stop waits after the first signal before SIGKILL.
const DefaultGrace = 3 * time.Second

type Spec struct {
	Path        string   // program name or path; resolved with exec.LookPath, then KnownDirs
	Args        []string // without the program name
	Dir         string
	Env         []string  // the full environment; nil means os.Environ()
	StderrLimit int       // kept stderr bytes (default 64 KiB)
	StderrTee   io.Writer // also receives every stderr byte
	// StopSignal is sent to the group first on Stop (default SIGTERM). On
	// Windows any signal but SIGKILL becomes CTRL_BREAK_EVENT.
	StopSignal syscall.Signal
	Grace      time.Duration // between StopSignal and SIGKILL (default DefaultGrace)
	// CmdLine, on Windows only, is passed as is instead of one quoted from
	// Path and Args (cmd.exe /c reads its own quoting).
	CmdLine string
}

type Process struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser

	spec       Spec
	cmd        *exec.Cmd
	sys        sysState
	stderr     *Ring
	done       chan struct{}
	waitErr    error
	closeStdin sync.Once              // on the first Stop
	stderrDone chan struct{}          // closed when the stderr copier drained the pipe
	status     exitStatus             // set once reaped
	stopped    atomic.Pointer[string] // why StopFor signalled it before it exited
	traced     *tracedPipes           // nil unless tracing is on
}

// Log receives a debug line per agent start and exit (program, args with
// long values cut, pid, exit status and stderr tail); hub sets it from its
// logger. The environment is never logged (it carries API keys).
var Log = zerolog.Nop()

// Start launches spec. Cancelling ctx stops the process as Stop does.
// While StopAll runs, or a StopUnder keeps it out of spec.Dir, it starts
// nothing.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	starting.RLock()
	defer starting.RUnlock()
	if fencedOff(spec.Dir) {
		return nil, fmt.Errorf("start %s: %w", spec.Path, ErrStopping)
	}
	path, err := LookPath(spec.Path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (is it installed and on PATH?)", ErrNotFound, spec.Path)
	}
	// A missing directory fails the child's chdir with ENOENT, which the
	// exec error does not tell from a missing program.
	if spec.Dir != "" {
		if st, err := os.Stat(spec.Dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%w: %s is not a directory", ErrBadDir, spec.Dir)
		}
	}
	spec.StderrLimit = cmp.Or(max(spec.StderrLimit, 0), 64<<10)
	spec.StopSignal = cmp.Or(spec.StopSignal, syscall.SIGTERM)
	spec.Grace = cmp.Or(max(spec.Grace, 0), DefaultGrace)
	p := &Process{spec: spec, stderr: NewRing(spec.StderrLimit), done: make(chan struct{}), stderrDone: make(chan struct{})}
	if err = p.startPipes(path); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	live.Store(p, nil)
	trace.Mark(ctx, trace.Spawned)
	Log.Debug().Str("program", path).Strs("args", logArgs(spec.Args)).Str("dir", spec.Dir).Int("pid", p.Pid()).Msg("agent process started")
	unwatch := context.AfterFunc(ctx, func() { _ = p.Stop() })
	go func() {
		p.wait()
		unwatch()
	}()
	return p, nil
}

func (p *Process) startPipes(path string) error {
	cmd, err := p.command(path)
	if err != nil {
		return err
	}
	p.cmd = cmd
	ps, err := pipes(3)
	if err != nil {
		_ = p.launch(func() error { return err }) // closes what command opened
		return err
	}
	inR, inW, outR, outW, errR, errW := ps[0], ps[1], ps[2], ps[3], ps[4], ps[5]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := p.launch(cmd.Start); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return err
	}
	closeAll(inR, outW, errW)
	p.Stdin, p.Stdout = inW, outR
	p.tracePipes()
	go p.copyStderr(errR)
	return nil
}

func (p *Process) copyStderr(r *os.File) {
	defer close(p.stderrDone)
	defer r.Close()
	var w io.Writer = p.stderr
	if p.spec.StderrTee != nil {
		w = io.MultiWriter(p.stderr, p.spec.StderrTee)
	}
	_, _ = io.Copy(w, r)
}

// stderrDrainLimit bounds the wait for stderr EOF after exit: a process that
// escaped the group may still hold the pipe open.
const stderrDrainLimit = 2 * time.Second

func (p *Process) wait() {
	p.waitErr = p.reap()
	p.killTree()
	// Let the copier finish, so StderrTail sees the last lines written.
	select {
	case <-p.stderrDone:
	case <-time.After(stderrDrainLimit):
	}
	live.Delete(p)
	ev := Log.Debug().Str("program", p.spec.Path).Int("pid", p.Pid()).Int("exit", p.status.code)
	if p.waitErr != nil {
		ev = ev.Str("status", p.waitErr.Error()).Str("stderr", p.stderr.TailLines(5))
	}
	ev.Msg("agent process exited")
	close(p.done)
}

// logArgs cuts long arguments (prompts, MCP configs with headers) short.
func logArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 80 || strings.Contains(strings.ToLower(a), "authorization") || strings.Contains(a, "token") {
			a = a[:min(len(a), 20)] + "…[cut]"
		}
		out[i] = a
	}
	return out
}

// Pid is the leader's: on Unix the supervisor, whose pid is the group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the process has been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait blocks until exit and returns the exit error (nil on status 0).
func (p *Process) Wait() error {
	<-p.done
	return p.waitErr
}

// ExitCode returns the exit status, -1 while running or when killed by a signal.
func (p *Process) ExitCode() int {
	if !p.Exited() {
		return -1
	}
	return p.status.code
}

func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends sig to the whole process group (see Spec.StopSignal for Windows).
func (p *Process) Signal(sig syscall.Signal) error {
	if p.Exited() {
		return nil
	}
	if err := p.signalTree(sig); err != nil {
		return fmt.Errorf("signal %v to group %d: %w", sig, p.Pid(), err)
	}
	return nil
}

// Stop closes stdin, signals the group with StopSignal, waits the grace
// period, then SIGKILLs the group and waits for the reap. Safe to call many
// times and from many goroutines.
func (p *Process) Stop() error { return p.stop(p.spec.Grace, "") }

// StopFor is Stop saying why, which Stopped then tells (the first why given).
func (p *Process) StopFor(why string) error { return p.stop(p.spec.Grace, why) }

func (p *Process) StopWithin(grace time.Duration) error { return p.stop(grace, "") }

func (p *Process) stop(grace time.Duration, why string) error {
	p.closeStdin.Do(func() { _ = p.Stdin.Close() })
	if p.Exited() {
		return nil
	}
	if why != "" {
		p.stopped.CompareAndSwap(nil, &why)
	}
	_ = p.Signal(p.spec.StopSignal)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	_ = p.Signal(syscall.SIGKILL)
	<-p.done
	return nil
}

// Stopped is why a StopFor signalled the process before it exited, or "".
func (p *Process) Stopped() string {
	if why := p.stopped.Load(); why != nil {
		return *why
	}
	return ""
}

func (p *Process) StderrTail(n int) string { return p.stderr.TailLines(n) }

// pipes opens n pipes, each as its read end then its write end; when one
// fails, those opened before it are closed.
func pipes(n int) ([]*os.File, error) {
	var ends []*os.File
	for range n {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(ends...)
			return nil, err
		}
		ends = append(ends, r, w)
	}
	return ends, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

var (
	live sync.Map // keys: the started processes not yet reaped
	// starting is held read by each Start and written by StopUnder, so the
	// starts under way are live, or refused, before StopUnder looks.
	starting sync.RWMutex
	// fenced counts the StopUnder calls keeping Start out of each directory
	// ("": every directory).
	fenced = map[string]int{}
)

// StopAll stops every live process concurrently, those whose start it
// raced included; Start refuses while it runs. Call it on shutdown.
func StopAll(grace time.Duration) { StopUnder("", grace)() }

// StopUnder stops every live process started in dir or below it ("":
// every one) concurrently, those whose start it raced included, and keeps
// Start out of dir until lift is called: nothing runs on in a directory
// about to be removed, however late its start.
func StopUnder(dir string, grace time.Duration) (lift func()) {
	starting.Lock()
	fenced[dir]++
	starting.Unlock()
	var wg sync.WaitGroup
	for p := range live.Range {
		if p := p.(*Process); under(p.spec.Dir, dir) {
			wg.Go(func() { _ = p.StopWithin(grace) })
		}
	}
	wg.Wait()
	return sync.OnceFunc(func() {
		starting.Lock()
		defer starting.Unlock()
		if fenced[dir]--; fenced[dir] == 0 {
			delete(fenced, dir)
		}
	})
}

// under says whether d is dir or below it; every d is under "".
func under(d, dir string) bool {
	rel, err := filepath.Rel(dir, d)
	return dir == "" || err == nil && filepath.IsLocal(rel)
}

// fencedOff: the caller holds starting.
func fencedOff(dir string) bool {
	for f := range fenced {
		if under(dir, f) {
			return true
		}
	}
	return false
}

// Live is the number of supervised processes not yet reaped.
func Live() int {
	n := 0
	for range live.Range {
		n++
	}
	return n
}
