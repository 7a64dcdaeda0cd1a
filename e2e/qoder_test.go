//go:build e2e && unix

package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/qoder"
	"github.com/hubdev/hub/internal/config"
)

// Qoder cannot be pointed at a local model endpoint (clis.md §4.4), so this
// only checks the pinned binary and the ACP handshake; decoding is covered
// by the recorded fixtures in testdata/qodercli.
func TestQoder_VersionAndACPHandshake(t *testing.T) {
	bin := e2eCLI(t, "qodercli", "qodercli")
	home := t.TempDir()
	t.Setenv("HOME", home)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != qoder.TestedVersions {
		t.Fatalf("qodercli --version = %q, %v; want %s", out, err, qoder.TestedVersions)
	}
	a := qoder.New(config.AgentConfig{Command: config.Command{bin, "--acp"}}, "e2e", false, zerolog.New(os.Stderr).Level(zerolog.InfoLevel))
	s, err := a.Start(ctx, adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		// Not logged in: the handshake must fail with a clear auth error.
		if !errors.Is(err, adapters.ErrNotAuthenticated) {
			t.Fatalf("start without login: %v (want an authentication error)", err)
		}
		return
	}
	defer s.Close()
	if s.ID() == "" {
		t.Fatal("session/new answered without a session id")
	}
}
