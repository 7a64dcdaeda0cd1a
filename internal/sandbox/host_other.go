//go:build !linux && !darwin

package sandbox

import "runtime"

// hub has no sandbox for this OS (Windows): commands run unconfined and
// their output says so.
const (
	hostTool    = ""
	installHint = ""
)

var noToolReason = "hub has no command sandbox on " + runtime.GOOS

func wrap(s *Sandbox, _, path string, args []string) (Wrapped, func(), error) {
	return Wrapped{Path: path, Args: args}, func() {}, nil
}
