package acp

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// TestMain lets the test binary stand in for hooks, checks and agent CLIs
// (proctest), so the tests need no sh and run on Windows too.
func TestMain(m *testing.M) {
	proctest.Main(m, nil)
}

// osAbs spells the absolute slashed path for this OS: as is off Windows,
// on drive C: on Windows.
func osAbs(slashed string) string {
	if runtime.GOOS == "windows" {
		return `C:` + filepath.FromSlash(slashed)
	}
	return slashed
}
