package adapters_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// A request that got no answer from a process that exited reads as the
// exit (status, stderr); an answer, or the caller's own end, stays as it is.
func TestGone_OnlyALostRequestIsTheExit(t *testing.T) {
	argv := proctest.Command("err:boom: bad flag\n", "exit:2")
	p, err := proc.Start(context.Background(), proc.Spec{Path: argv[0], Args: argv[1:]})
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Wait()
	const exit = "demo exited before answering initialize (exit code 2): boom: bad flag"
	answer := jsonrpc.NewError(-32603, "agent says no", nil)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		same bool // Gone returns err itself
	}{
		{"broken pipe", context.Background(), errors.New("initialize: write |1: broken pipe"), false},
		{"closed connection", context.Background(), fmt.Errorf("initialize: %w", jsonrpc.ErrClosed), false},
		{"the agent's answer", context.Background(), answer, true},
		{"the caller's end", done, context.Canceled, true},
		{"no failure", context.Background(), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := adapters.Gone(tt.ctx, p, "demo", "initialize", tt.err)
			switch {
			case tt.same && got != tt.err:
				t.Fatalf("Gone = %v, want %v itself", got, tt.err)
			case !tt.same && (got.Error() != exit || errors.Is(got, adapters.ErrClosed)):
				t.Fatalf("Gone = %v, want the exit, as a start failure", got)
			}
		})
	}
}

// A process's end reads the same wherever it is read: the turn it ends
// (CrashEnd), the session's Exit (CrashInfo) and a later prompt's error
// (CrashError), and a request it never answered (Gone). One that hub
// stopped was stopped for one cause, and every reading says which.
func TestCrash_ToldOneWay(t *testing.T) {
	tests := []struct {
		name       string
		ops        []string
		stop       string // why hub stops it before the readings ("": none)
		want, lost string // the readings' start; the request's
	}{
		{"exited", []string{"err:boom\n", "exit:3"}, "", "demo exited unexpectedly (exit code 3)", "demo exited before answering initialize (exit code 3)"},
		{"closed its output, ran on", []string{"err:boom\n", "closeio", "hang"}, "", "demo closed its output and was stopped (",
			"demo closed its output and was stopped before answering initialize ("},
		{"ignored a cancel", []string{"err:boom\n", "out:up\n", "hang"}, adapters.StopIgnoredCancel, "demo did not stop on cancel and was stopped (",
			"demo did not stop on cancel and was stopped before answering initialize ("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			argv := proctest.Command(tt.ops...)
			p, err := proc.Start(context.Background(), proc.Spec{Path: argv[0], Args: argv[1:]})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop()
			if tt.stop != "" {
				_, _ = p.Stdout.Read(make([]byte, 3)) // up: it wrote its stderr
				_ = p.StopFor(tt.stop)
			}
			end := adapters.CrashEnd(p, "demo")[0].Error
			info, ok := adapters.CrashInfo(p, "demo")
			te := (*adapters.TurnError)(nil)
			if !ok || !errors.As(adapters.CrashError(p, "demo", adapters.ErrClosed), &te) {
				t.Fatalf("exit %v, prompt error %v: the process is gone", info, te)
			}
			for _, got := range []*adapters.ErrorInfo{end, info, &te.Info} {
				if got.Message != end.Message || got.Detail != "boom" || !strings.HasPrefix(got.Message, tt.want) || !strings.HasSuffix(got.Message, ": boom") {
					t.Fatalf("turn end %q, Exit %q, next prompt %q; want each %q…: boom", end.Message, info.Message, te.Info.Message, tt.want)
				}
			}
			lost := adapters.Gone(context.Background(), p, "demo", "initialize", adapters.ErrClosed).Error()
			if !strings.HasPrefix(lost, tt.lost) || !strings.HasSuffix(lost, ": boom") {
				t.Errorf("lost request %q, want %q…: boom", lost, tt.lost)
			}
		})
	}
}

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
			got := adapters.StartError(err)
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
