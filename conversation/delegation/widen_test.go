package delegation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
)

// workspace is a workspace with a directory in it, a link in it to a
// directory outside (planted by the repository) and that directory.
func workspace(t *testing.T) (ws, outside string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir()) // macOS's temp dir is under a link
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(root, "ws"), filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(ws, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Where no link can be made (Wine makes none, Windows wants a
	// privilege) the link rows are refused as missing, the others hold.
	_ = os.Symlink(outside, filepath.Join(ws, "link"))
	return ws, outside
}

// A calling agent that fans out gets MaxTurns delegate turns at once; the
// next is refused in one line without starting an agent, and once they
// ended delegating works again.
func TestDelegate_FanOutIsBounded(t *testing.T) {
	slow, quick := &fakeAgent{name: "slow", hang: true}, answers("quick")
	started := make(chan struct{}, MaxTurns)
	slow.onStart = func() { started <- struct{}{} }
	reg := adapters.NewRegistry()
	reg.Register(slow)
	reg.Register(quick)
	d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop()})
	defer d.Close()
	done := make(chan error, MaxTurns)
	for range MaxTurns {
		go func() {
			_, err := d.Delegate(context.Background(), Request{Agent: "slow", Prompt: "work"}, nil)
			done <- err
		}()
	}
	for range MaxTurns {
		<-started
	}
	_, err := d.Delegate(context.Background(), Request{Agent: "quick", Prompt: "one more"}, nil)
	if !errors.Is(err, ErrRefused) || strings.Contains(err.Error(), "\n") || quick.starts != 0 {
		t.Fatalf("turn %d: error %v, %d starts; want ErrRefused in one line, no start", MaxTurns+1, err, quick.starts)
	}
	d.CancelTurns()
	for range MaxTurns {
		<-done
	}
	if _, err := d.Delegate(context.Background(), Request{Agent: "quick", Prompt: "now"}, nil); err != nil {
		t.Fatalf("after the turns ended: %v", err)
	}
}

// The calling agent writes the delegate request and is not trusted: a
// directory outside the workspace, a mode that skips hub's permission
// requests, or a model a CLI would read as an option is refused in one
// line before any agent starts; what a developer's agent really asks for
// runs, in the workspace as the user knows it.
func TestDelegate_RequestNeverWidens(t *testing.T) {
	ws, outside := workspace(t)
	tests := []struct {
		name     string
		r        Request
		refused  bool
		wantCwd  string // of an ok request
		wantMode string
	}{
		{name: "nothing chosen", r: Request{}, wantCwd: ws},
		{name: "a directory inside", r: Request{Cwd: "sub"}, wantCwd: filepath.Join(ws, "sub")},
		{name: "the workspace by its full path", r: Request{Cwd: ws}, wantCwd: ws},
		{name: "inside by its full path", r: Request{Cwd: filepath.Join(ws, "sub")}, wantCwd: filepath.Join(ws, "sub")},
		{name: "up and back in", r: Request{Cwd: "sub/../sub"}, wantCwd: filepath.Join(ws, "sub")},
		{name: "plan mode", r: Request{Mode: "plan"}, wantCwd: ws, wantMode: "plan"},
		{name: "read-only mode", r: Request{Mode: "read-only"}, wantCwd: ws, wantMode: "read-only"},
		{name: "default mode", r: Request{Mode: "default"}, wantCwd: ws, wantMode: "default"},
		{name: "a model", r: Request{Model: "claude-sonnet-4-5[1m]"}, wantCwd: ws},
		{name: "a model with a slash", r: Request{Model: "openai/gpt-5.1-codex"}, wantCwd: ws},

		{name: "parent directory", r: Request{Cwd: ".."}, refused: true},
		{name: "dot dot inside a path", r: Request{Cwd: "sub/../../other"}, refused: true},
		{name: "absolute outside", r: Request{Cwd: outside}, refused: true},
		{name: "a directory that is not there", r: Request{Cwd: "gone"}, refused: true},
		{name: "the root", r: Request{Cwd: string(filepath.Separator)}, refused: true},
		{name: "home", r: Request{Cwd: "~"}, refused: true},
		{name: "a link planted by the repository", r: Request{Cwd: "link"}, refused: true},
		{name: "inside a planted link", r: Request{Cwd: "link/."}, refused: true},
		{name: "a UNC path", r: Request{Cwd: `\\attacker\share`}, refused: true},
		{name: "another drive", r: Request{Cwd: `D:\`}, refused: true},
		{name: "bypassPermissions", r: Request{Mode: "bypassPermissions"}, refused: true},
		{name: "acceptEdits", r: Request{Mode: "acceptEdits"}, refused: true},
		{name: "dontAsk", r: Request{Mode: "dontAsk"}, refused: true},
		{name: "yolo", r: Request{Mode: "yolo"}, refused: true},
		{name: "autoEdit", r: Request{Mode: "autoEdit"}, refused: true},
		{name: "full-access", r: Request{Mode: "full-access"}, refused: true},
		{name: "auto", r: Request{Mode: "auto"}, refused: true},
		{name: "a mode in other letters", r: Request{Mode: "BypassPermissions"}, refused: true},
		{name: "a mode as a flag", r: Request{Mode: "--dangerously-skip-permissions"}, refused: true},
		{name: "a mode with a NUL", r: Request{Mode: "plan\x00--yolo"}, refused: true},
		{name: "a model as a flag", r: Request{Model: "--yolo"}, refused: true},
		{name: "a model as a short flag", r: Request{Model: "-c"}, refused: true},
		{name: "a model with a NUL", r: Request{Model: "opus\x00--yolo"}, refused: true},
		{name: "a model over two lines", r: Request{Model: "opus\n--yolo"}, refused: true},
		{name: "an inside cwd with a widening mode", r: Request{Cwd: "sub", Mode: "bypassPermissions"}, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := answers("claude")
			reg := adapters.NewRegistry()
			reg.Register(a)
			d := New(Options{Registry: reg, Cwd: ws, Log: zerolog.Nop(), Chain: []adapters.Adapter{answers("lead")}})
			defer d.Close()
			r := tt.r
			r.Agent, r.Prompt = "claude", "review the change"
			_, err := d.Delegate(context.Background(), r, nil)
			a.mu.Lock()
			defer a.mu.Unlock()
			if tt.refused {
				if !errors.Is(err, ErrRefused) || strings.Contains(err.Error(), "\n") || a.starts != 0 {
					t.Fatalf("error %v after %d starts; want ErrRefused in one line and no agent started", err, a.starts)
				}
				return
			}
			if err != nil || len(a.opts) != 1 {
				t.Fatalf("error %v, %d starts; want the delegate to run", err, len(a.opts))
			}
			if so := a.opts[0]; so.Cwd != tt.wantCwd || so.Mode != tt.wantMode || so.Env[EnvChain] != "lead,claude" {
				t.Fatalf("the delegate started in %q, mode %q, chain %q; want %q, mode %q, chain lead,claude", so.Cwd, so.Mode, so.Env[EnvChain], tt.wantCwd, tt.wantMode)
			}
		})
	}
}
