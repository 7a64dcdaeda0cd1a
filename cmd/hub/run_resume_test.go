package main

import (
	"strings"
	"testing"
)

// --continue and --resume last find the latest run; without a prompt (and
// an empty stdin) the resumed run's prompt is "continue".
func TestRun_ContinueFlags(t *testing.T) {
	for _, flags := range [][]string{{"--continue"}, {"--resume", "last"}} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			isolate(t)
			if code, _, errOut := hub(t, nil, "run", "--agent", "replay", "first"); code != 0 {
				t.Fatalf("first run: exit %d %s", code, errOut)
			}
			code, out, errOut := hub(t, nil, append([]string{"run", "--agent", "replay"}, flags...)...)
			if code != 0 || out != "continue\n" {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
			}
		})
	}
}

func TestRun_ContinueWithNothingToContinue(t *testing.T) {
	isolate(t)
	code, _, errOut := hub(t, nil, "run", "--agent", "replay", "--continue")
	if code != 2 || !strings.Contains(errOut, "no earlier run of replay") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
}
