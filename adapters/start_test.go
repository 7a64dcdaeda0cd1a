package adapters_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

// A start failure maps to what the user must fix: install the program, fix
// the working directory (named), or read the cause.
func TestStartError_MapsCause(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	if runtime.GOOS == "windows" {
		garbage += ".exe" // Windows finds a program by its extension
	}
	if err := os.WriteFile(garbage, []byte("\x00\x01\x02\x03 not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	missingDir := filepath.Join(dir, "no-such-dir")
	tests := []struct {
		name    string
		spec    proc.Spec
		want    error
		mention string
	}{
		{"program not found", proc.Spec{Path: "no-such-agent-program"}, adapters.ErrNotInstalled, "no-such-agent-program"},
		{"bad working directory", proc.Spec{Path: sh, Dir: missingDir}, adapters.ErrBadCwd, missingDir},
		{"program that cannot run", proc.Spec{Path: garbage, Dir: dir}, adapters.ErrStart, "garbage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := proc.Start(context.Background(), tt.spec)
			if err == nil {
				_ = p.Stop()
				t.Fatal("started")
			}
			got := adapters.StartError("demo", err)
			if !errors.Is(got, tt.want) {
				t.Fatalf("StartError = %v, want %v", got, tt.want)
			}
			if tt.want != adapters.ErrNotInstalled && errors.Is(got, adapters.ErrNotInstalled) {
				t.Fatalf("%v reported as not installed", got)
			}
			if !strings.Contains(got.Error(), tt.mention) {
				t.Fatalf("%q does not name %q", got, tt.mention)
			}
		})
	}
}
