package tools

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/sandbox"
)

// Without the host's sandbox tool the bash tool still runs the command,
// and its output starts with a one-line "not sandboxed" notice; with the
// mode off it says nothing.
func TestBash_NotSandboxedNotice(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the command is POSIX sh")
	}
	missing := func(string) (string, error) { return "", errors.New("not found") }
	for _, tc := range []struct {
		name       string
		mode       sandbox.Mode
		wantNotice bool
	}{
		{"workspace-write without bwrap", sandbox.WorkspaceWrite, true},
		{"read-only without bwrap", sandbox.ReadOnly, true},
		{"mode off", sandbox.Off, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.Sandbox = sandbox.New(sandbox.Policy{Mode: tc.mode}, missing)
			r, err := runTool(t, e, "bash", `{"command":"echo ran"}`)
			if err != nil || r.Failed || !strings.Contains(r.Output, "ran") {
				t.Fatalf("%+v %v", r, err)
			}
			first, _, _ := strings.Cut(r.Output, "\n")
			if got := strings.Contains(first, "not sandboxed"); got != tc.wantNotice {
				t.Errorf("first line %q: notice %v, want %v", first, got, tc.wantNotice)
			}
		})
	}
}

// With bwrap the bash tool writes in the workspace, not outside it, and
// in read-only mode not even there.
func TestBash_SandboxedWrites(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil || runtime.GOOS != "linux" {
		t.Skip("needs bwrap on Linux (make test-deps installs bubblewrap)")
	}
	outside := filepath.Join(t.TempDir(), "out.txt")
	for _, tc := range []struct {
		name      string
		mode      sandbox.Mode
		command   string
		wantOK    bool
		wantFile  string
		wantWrote bool
	}{
		{"workspace-write: in the workspace", sandbox.WorkspaceWrite, "echo hi > in.txt", true, "in.txt", true},
		{"workspace-write: outside", sandbox.WorkspaceWrite, "echo hi > " + outside, false, outside, false},
		{"read-only: in the workspace", sandbox.ReadOnly, "echo hi > in.txt", false, "in.txt", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.Sandbox = sandbox.New(sandbox.Policy{Mode: tc.mode}, nil)
			r, err := runTool(t, e, "bash", `{"command":"`+tc.command+`"}`)
			if err != nil || r.Failed == tc.wantOK {
				t.Fatalf("%q under %s: %+v %v", tc.command, tc.mode, r, err)
			}
			if strings.Contains(r.Output, "not sandboxed") {
				t.Errorf("sandboxed output carries the notice: %q", r.Output)
			}
			path := tc.wantFile
			if !filepath.IsAbs(path) {
				path = filepath.Join(e.Root, path)
			}
			if _, err := os.Stat(path); (err == nil) != tc.wantWrote {
				t.Errorf("%s written = %v; want %v", path, err == nil, tc.wantWrote)
			}
		})
	}
}

// An editor terminal runs the wrapped command: the sandbox tool, with the
// shell after "--".
func TestBash_TerminalRunsUnderTheSandbox(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("bwrap wraps commands on Linux")
	}
	e := newTestEnv(t)
	e.Sandbox = sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite}, func(string) (string, error) { return "/usr/bin/bwrap", nil })
	ed := &termEditor{}
	e.Editor = ed
	if _, err := runTool(t, e, "bash", `{"command":"ls"}`); err != nil {
		t.Fatal(err)
	}
	i := strings.Index(strings.Join(ed.args, "\x00"), "\x00--\x00"+e.shell.Path+"\x00")
	if ed.command != "/usr/bin/bwrap" || i < 0 {
		t.Fatalf("terminal/create got %q %q; want bwrap running the shell", ed.command, ed.args)
	}
}
