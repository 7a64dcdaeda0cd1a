//go:build unix

package claude

import (
	"errors"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/safefile"
)

// An image URI naming a FIFO is refused at once: reading it would hold the
// prompt until something writes to it.
func TestUserMessage_FIFOImageRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "shot.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	img := adapters.Content{Type: adapters.ContentImage, URI: fileuri.FromPath(runtime.GOOS, fifo)}
	if _, err := userMessage([]adapters.Content{img}, "u"); !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("err = %v, want a refusal of the FIFO", err)
	}
}
