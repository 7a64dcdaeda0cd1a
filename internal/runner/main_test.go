package runner

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// TestMain lets the test binary stand in for hooks (proctest), so the
// tests need no sh and run on Windows too.
func TestMain(m *testing.M) {
	proctest.Main(m, map[string]proctest.Helper{"witness": witness})
}

// witness says "ready" once it catches stop signals, then waits for one
// and writes to the file it is given whether its working directory still
// existed then ("true" or "false").
func witness(args []string) int {
	cwd, err := os.Getwd()
	if err != nil || len(args) != 1 {
		return 2
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	fmt.Println("ready")
	<-stop
	_, err = os.Stat(cwd)
	if os.WriteFile(args[0], []byte(strconv.FormatBool(err == nil)), 0o644) != nil {
		return 1
	}
	return 0
}
