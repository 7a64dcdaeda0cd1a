// Package safefile reads files a repository supplies (config, AGENTS.md,
// skills) without trusting their shape, opens a workspace's files with no
// link on the way (OpenIn), and rewrites small shared stores (trust, grants)
// so concurrent hub processes do not lose each other's writes. It imports
// nothing of hub's, so every package may use it.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

var (
	// ErrNotRegular: a device, FIFO, socket or directory (Read follows a
	// symlink; its target must be a regular file).
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
	ErrLocked     = errors.New("locked")
	// ErrLinked: a link (a symlink, or a junction on Windows) stands on a
	// path OpenIn follows none of.
	ErrLinked = errors.New("a link is on the path, which is not followed")
)

// Read returns the bytes of the regular file at path, at most max of them:
// a longer file is ErrTooLarge, a device or FIFO ErrNotRegular, without
// blocking on it.
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	return readAll(f, err, path, max)
}

// ReadIn is Read of name (slash-separated) under the folder top, opened by
// OpenIn: no link is followed on the way.
func ReadIn(top, name string, max int64) ([]byte, error) {
	f, err := OpenIn(top, name, os.O_RDONLY)
	return readAll(f, err, name, max)
}

// readAll reads at most max bytes of f, and closes it.
func readAll(f *os.File, err error, path string, max int64) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("read %s: %w: more than %d bytes", path, ErrTooLarge, max)
	}
	return data, nil
}

// Open opens the regular file at path for reading, for a reader that
// takes only part of it: a device, FIFO or directory is ErrNotRegular,
// neither opened nor waited on.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w (%s)", path, ErrNotRegular, kind(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	// The path may have been swapped between Stat and Open.
	if st, err = f.Stat(); err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return f, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// Lock timing: a change holds a lock for a read and a write.
const (
	lockWait = 10 * time.Second
	lockPoll = 5 * time.Millisecond
)

// Lock takes path+".lock", an OS file lock (Hold) that dies with its
// process, waiting for another holder up to lockWait. No age makes a lock
// stale: two waiters that each removed a lock file they judged stale used
// to hold the lock at once.
func Lock(path string) (unlock func(), err error) { return lock(path, lockWait) }

func lock(path string, wait time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(wait)
	for {
		unlock, err := Hold(path + ".lock")
		if !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			return unlock, err
		}
		time.Sleep(lockPoll)
	}
}

// WriteAtomic replaces path with data through a temporary file renamed over
// it, so a reader sees the old or the new bytes.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(data)
	err = errors.Join(werr, tmp.Chmod(perm), tmp.Close()) // called in this order
	if err == nil {
		err = rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Update rewrites path under its lock: change gets the current bytes (nil
// when the file does not exist yet) and returns the new ones.
func Update(path string, max int64, perm fs.FileMode, change func(old []byte) ([]byte, error)) error {
	unlock, err := Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := Read(path, max)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data, err := change(old)
	if err != nil {
		return err
	}
	return WriteAtomic(path, data, perm)
}
