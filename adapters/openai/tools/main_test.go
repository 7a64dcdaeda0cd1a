package tools

import (
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// TestMain lets the test binary play the fake programs tests install.
func TestMain(m *testing.M) { proctest.Main(m, nil) }
