// Package logging builds hub's zerolog logger. Logs go to stderr or a file,
// never stdout, because stdout carries protocol bytes in `hub acp`.
package logging

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/rs/zerolog"
)

// New returns a logger at level (flag, else HUB_LOG, else "warn") writing to
// file when set, else to stderr. The returned closer closes the file.
func New(level, file string) (zerolog.Logger, io.Closer, error) {
	return newLogger(level, file, os.Stderr)
}

func newLogger(level, file string, stderr *os.File) (zerolog.Logger, io.Closer, error) {
	level = cmp.Or(level, os.Getenv("HUB_LOG"), "warn")
	lvl, err := zerolog.ParseLevel(strings.ToLower(level))
	if err != nil {
		return zerolog.Nop(), io.NopCloser(nil), fmt.Errorf("bad log level %q (use trace, debug, info, warn, error)", level)
	}
	var w io.Writer = zerolog.ConsoleWriter{Out: stderr, NoColor: !colour(stderr), TimeFormat: "15:04:05.000"}
	var closer io.Closer = io.NopCloser(nil)
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return zerolog.Nop(), io.NopCloser(nil), fmt.Errorf("open log file: %w", err)
		}
		w, closer = f, f
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), closer, nil
}

// Slog is log as a *slog.Logger, for libraries that log through slog (the
// MCP SDK): their records reach hub's log at hub's level instead of being
// dropped.
func Slog(log zerolog.Logger) *slog.Logger {
	return slog.New(zerolog.NewSlogHandler(log))
}

// colour reports whether logs to f may carry colour escapes: only on a
// terminal (editors and CI read stderr through a pipe and show escapes
// raw), and never with NO_COLOR set.
func colour(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
