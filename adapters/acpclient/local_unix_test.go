//go:build unix

package acpclient

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fspath"
)

// A FIFO in the workspace is neither read nor written for an agent, even
// when allowed: either would hold the agent's request (and its turn) until
// something opened the FIFO's other end.
func TestLocal_FIFONeitherReadNorWritten(t *testing.T) {
	for _, op := range []string{"read", "write"} {
		t.Run(op, func(t *testing.T) {
			dir, err := fspath.RealPath(t.TempDir())
			must(t, err)
			fifo := filepath.Join(dir, "pipe")
			must(t, syscall.Mkfifo(fifo, 0o600))
			s := startFake(t, adapters.SessionOptions{Cwd: dir})
			if got := texts(prompt(t, s, "/"+op+" "+fifo, allowAll)); rpcCode(t, got, op+":") == 0 {
				t.Fatalf("the agent's %s of a FIFO answered %q, want an error", op, got)
			}
		})
	}
}
