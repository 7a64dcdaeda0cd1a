package logging

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// Logs written to a pipe (an editor reading hub's stderr) carry no colour
// escapes, with or without NO_COLOR.
func TestNew_NoColourOnPipe(t *testing.T) {
	for _, noColor := range []string{"", "1"} {
		t.Setenv("NO_COLOR", noColor)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		log, _, err := newLogger("info", "", w)
		if err != nil {
			t.Fatal(err)
		}
		log.Info().Str("agent", "claude").Msg("started")
		_ = w.Close()
		out, _ := io.ReadAll(r)
		if len(out) == 0 {
			t.Fatal("nothing logged")
		}
		if bytes.Contains(out, []byte("\x1b[")) {
			t.Errorf("NO_COLOR=%q: colour escapes on a pipe: %q", noColor, out)
		}
	}
}

func TestColour_NeverWithNoColor(t *testing.T) {
	tty, err := os.Open("/dev/tty")
	if err != nil {
		t.Skip("no terminal:", err)
	}
	defer tty.Close()
	t.Setenv("NO_COLOR", "1")
	if colour(tty) {
		t.Error("colour on a terminal with NO_COLOR set")
	}
}
