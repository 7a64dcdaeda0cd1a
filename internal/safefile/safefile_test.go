package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRead_RegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	big := filepath.Join(dir, "big")
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(small, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 101)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(small, link); err != nil && runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string
		err        error
	}{
		{"regular", small, "hello", nil},
		{"symlink to regular", link, "hello", nil},
		{"over the cap", big, "", ErrTooLarge},
		{"directory", dir, "", ErrNotRegular},
		{"missing", filepath.Join(dir, "none"), "", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == link && runtime.GOOS == "windows" {
				t.Skip("symlinks need privileges on Windows")
			}
			got, err := Read(tt.path, 100)
			if !errors.Is(err, tt.err) || string(got) != tt.want {
				t.Fatalf("Read = %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
			if err != nil && tt.err != fs.ErrNotExist && !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestRead_DevicesAndFIFOsFailAtOnce: a repository can hold a symlink to
// /dev/zero or a FIFO; reading either must fail, not fill memory or block.
func TestRead_DevicesAndFIFOsFailAtOnce(t *testing.T) {
	dir := t.TempDir()
	for name, target := range specialFiles(t, dir) {
		t.Run(name, func(t *testing.T) {
			link := filepath.Join(dir, name+"-link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{target, link} {
				if _, err := Read(p, 1<<20); !errors.Is(err, ErrNotRegular) {
					t.Errorf("Read(%s) = %v, want ErrNotRegular", p, err)
				}
			}
		})
	}
}

// TestUpdate_ConcurrentWritersKeepEveryEntry: writers in goroutines each
// add one line; none is lost.
func TestUpdate_ConcurrentWritersKeepEveryEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store")
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- Update(path, 1<<20, 0o600, func(old []byte) ([]byte, error) {
				return append(old, fmt.Sprintf("entry %d\n", i)...), nil
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "entry "); got != n {
		t.Fatalf("%d entries kept, want %d:\n%s", got, n, data)
	}
}

// A lock is held for as long as its holder lives, however old its file
// looks: two waiters that each broke a lock they judged stale (and the
// holder's) used to hold it at once. A dead holder's lock is taken.
func TestLock_HeldWhateverItsAge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path+".lock", old, old); err != nil {
		t.Fatal(err)
	}
	if again, err := lock(path, 0); !errors.Is(err, ErrLocked) {
		if again != nil {
			again()
		}
		t.Fatalf("second lock of a held lock with an old file: %v, want ErrLocked", err)
	}
	unlock()
	again, err := lock(path, 0)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
}
