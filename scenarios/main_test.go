package scenarios

import (
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// TestMain lets the test binary be a row's hook command (proctest).
func TestMain(m *testing.M) {
	proctest.Main(m, nil)
}
