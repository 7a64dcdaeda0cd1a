//go:build unix

package codex

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/safefile"
)

// An image whose path has a comma is copied by a bounded read: a FIFO is
// refused at once instead of holding the prompt until something writes to
// it, and a file larger than any request is refused.
func TestLocalImage_CommaPathCopyIsBounded(t *testing.T) {
	tests := []struct {
		name string
		make func(path string) error
		want error
	}{
		{"a FIFO", func(path string) error { return syscall.Mkfifo(path, 0o600) }, safefile.ErrNotRegular},
		{"a huge file", func(path string) error {
			f, err := os.Create(path)
			if err == nil {
				err = errors.Join(f.Truncate(maxImageBytes+1), f.Close()) // sparse: nothing written
			}
			return err
		}, safefile.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			shot := filepath.Join(dir, "shot, final.png")
			if err := tt.make(shot); err != nil {
				t.Fatal(err)
			}
			tempFile := func(name string) (string, error) { return filepath.Join(dir, name), nil }
			if _, err := localImage(fileuri.FromPath(runtime.GOOS, shot), 0, tempFile); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}
