package main

import (
	"os"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// envFake is a fake program the test binary runs, instead of the tests,
// when its variable is set.
type envFake struct {
	env string
	run func()
}

// envFakes, first match wins: a fake agent started by a re-executed hub
// inherits HUB_TEST_MAIN. OS-specific test files insert theirs in front.
var envFakes = []envFake{
	{"HUB_TEST_SLEEP", func() { time.Sleep(time.Minute) }},
	{"HUB_TEST_MAIN", main},
}

func TestMain(m *testing.M) {
	for _, f := range envFakes {
		if os.Getenv(f.env) != "" {
			f.run()
			os.Exit(0)
		}
	}
	proctest.Main(m, nil)
}
