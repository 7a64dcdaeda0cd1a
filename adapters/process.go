package adapters

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"time"

	"github.com/hubdev/hub/internal/proc"
)

// Flusher is a LineDecoder that holds records back until the next line shows what they
// mean; the end of the stream releases them.
type Flusher interface {
	Flush() []Event
}

// exitWait bounds the wait for an agent process that broke its pipe to be reaped, so its
// exit status and stderr can be told.
const exitWait = 2 * time.Second

// ExitTimer starts exitWait for a process. A test sets it, before any process starts, to
// hear a reading begin to wait for an exit that is not coming.
var ExitTimer = func(*proc.Process) <-chan time.Time { return time.After(exitWait) }

// CrashInfo describes name's process as a crash, with its exit status and stderr tail,
// once it has exited (waiting up to exitWait); ok is false when it still runs.
func CrashInfo(p *proc.Process, name string) (info *ErrorInfo, ok bool) {
	select {
	case <-p.Done():
	case <-ExitTimer(p):
		return nil, false
	}
	return &ErrorInfo{Code: CodeCrash, Fatal: true, Detail: p.StderrTail(10), Message: name + cmp.Or(p.Stopped(), " exited unexpectedly") + " " + howExited(p)}, true
}

// Exit is an Exiter's reading of name's process p: nil at once while its output (closed
// closes with it) is open, as an agent that answered with an error is alive; its crash
// (CrashInfo, the one wait) once it is gone or closed its output.
func Exit(p *proc.Process, name string, closed <-chan struct{}) *ErrorInfo {
	select {
	case <-p.Done():
	case <-closed:
	default:
		return nil
	}
	info, _ := CrashInfo(p, name)
	return info
}

// Why hub stops an agent's process (proc.StopFor), worded after the agent's name.
const (
	StopClosedOutput  = " closed its output and was stopped"      // CrashEnd
	StopIgnoredCancel = " did not stop on cancel and was stopped" // its interrupt failed
)

// CrashEnd ends a turn whose agent process p (name) closed its output, in CrashInfo's
// words; p gets exitWait to exit, and is stopped if it still runs.
func CrashEnd(p *proc.Process, name string) []Event {
	info, ok := CrashInfo(p, name)
	if !ok {
		_ = p.StopFor(StopClosedOutput)
		info, _ = CrashInfo(p, name)
	}
	return Failure(info)
}

// howExited is the one wording of an exited process's end, after "exited ...": its exit
// code or the signal that killed it, then its last stderr line.
func howExited(p *proc.Process) string {
	how := fmt.Sprintf("(exit code %d)", p.ExitCode())
	if sig := p.ExitSignal(); sig != "" {
		how = "(killed by " + sig + ")"
	}
	if last := p.StderrTail(1); last != "" {
		how += ": " + last
	}
	return how
}

// CrashError is name's exited process as a *TurnError wrapping closed (an ErrClosed), or
// closed itself while the process still runs.
func CrashError(p *proc.Process, name string, closed error) error {
	if info, ok := CrashInfo(p, name); ok {
		return &TurnError{Info: *info, Err: closed}
	}
	return closed
}

// WriteLine writes line and a newline to p's stdin. A write to a process that is gone (a
// broken pipe) waits for its exit and is a crash (CrashError), not the pipe's error.
func WriteLine(p *proc.Process, name string, line []byte) error {
	if _, err := p.Stdin.Write(append(line, '\n')); err != nil {
		return CrashError(p, name, fmt.Errorf("%w: %w", ErrClosed, err))
	}
	return nil
}

// ReadLines passes each line of an agent's output to fn, the last one too when no newline
// ends it, and returns what ended the reading (io.EOF at the end).
func ReadLines(r io.Reader, fn func(line []byte)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			fn(line)
		}
		if err != nil {
			return err
		}
	}
}
