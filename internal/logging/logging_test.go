package logging

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/rs/zerolog"
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

func TestSlog_RecordsReachTheLogAtItsLevel(t *testing.T) {
	tests := []struct {
		name  string
		log   func(*slog.Logger)
		level string // "" when nothing may be written
	}{
		{"info under warn dropped", func(l *slog.Logger) { l.Info("x", "k", "v") }, ""},
		{"debug under warn dropped", func(l *slog.Logger) { l.Debug("x", "k", "v") }, ""},
		{"warn kept", func(l *slog.Logger) { l.Warn("x", "k", "v") }, "warn"},
		{"error kept", func(l *slog.Logger) { l.Error("x", "k", "v") }, "error"},
		{"attrs of With kept", func(l *slog.Logger) { l.With("k", "v").Error("x") }, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tt.log(Slog(zerolog.New(&buf).Level(zerolog.WarnLevel).With().Str("component", "sdk").Logger()))
			if tt.level == "" {
				if buf.Len() != 0 {
					t.Fatalf("logged %s", buf.Bytes())
				}
				return
			}
			var rec map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("not one JSON record: %q: %v", buf.Bytes(), err)
			}
			if rec["level"] != tt.level || rec["k"] != "v" || rec["component"] != "sdk" {
				t.Errorf("record %v, want level %s with k=v and the logger's own fields", rec, tt.level)
			}
		})
	}
}
