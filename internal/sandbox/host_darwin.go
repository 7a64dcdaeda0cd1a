//go:build darwin

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
)

const (
	hostTool     = "/usr/bin/sandbox-exec"
	installHint  = "sandbox-exec ships with macOS; check /usr/bin/sandbox-exec"
	noToolReason = ""
)

// wrap gives the command a private temp dir (Seatbelt cannot mount a
// tmpfs), resolved because Seatbelt matches real paths (/private/var/…).
func wrap(s *Sandbox, root, path string, args []string) (Wrapped, func(), error) {
	tmp, err := os.MkdirTemp("", "hub-sandbox-")
	if err != nil {
		return Wrapped{}, nil, fmt.Errorf("sandbox temp dir: %w", err)
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	return Wrapped{Path: s.tool, Args: SeatbeltArgs(s.Policy, root, tmp, hostSecrets(root), path, args), Env: []string{"TMPDIR=" + tmp}}, cleanup, nil
}
