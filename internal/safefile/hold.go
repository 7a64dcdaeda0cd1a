package safefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Hold takes an exclusive lock on path for as long as the caller works (a
// run of minutes), failing at once with ErrLocked when another holder has
// it. The OS file lock (flock, LockFileEx) dies with its process, so a dead
// holder's lock is taken over. The file stays (removing it would let two
// holders lock two files); it holds the holder's pid, which the error names.
func Hold(path string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := lockFile(path, f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := tryLock(f); err != nil {
		holder, pid := "", 0
		if _, err := fmt.Fscan(f, &pid); err == nil {
			holder = fmt.Sprintf(" by pid %d", pid)
		}
		_ = f.Close()
		return nil, fmt.Errorf("%w%s: %s", ErrLocked, holder, path)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		_ = f.Truncate(0)
		unlock(f)
		_ = f.Close()
	}, nil
}

// lockFile checks that f is the regular file of one name at path, not one
// a link leads to, which Hold would truncate.
func lockFile(path string, f *os.File) error {
	at, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if st, err := f.Stat(); err != nil || !os.SameFile(at, st) || Linked(f) {
		return ErrLinked
	}
	return nil
}
