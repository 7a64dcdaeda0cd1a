package runner

import (
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// TestMain lets the test binary stand in for hooks (proctest), so the
// tests need no sh and run on Windows too.
func TestMain(m *testing.M) {
	proctest.Main(m, nil)
}
