//go:build linux

package sandbox

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// requireBwrap skips when bubblewrap is missing (make test installs it).
func requireBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed (make test-deps installs bubblewrap)")
	}
}

// run runs script with bash in root under p and returns its output and
// whether it exited 0.
func run(t *testing.T, p Policy, root, script string) (string, bool) {
	t.Helper()
	w, cleanup, err := New(p, nil).Command(root, "bash", []string{"-c", script})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	cmd := exec.Command(w.Path, w.Args...)
	cmd.Env = append(os.Environ(), w.Env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func TestBwrap_WritesPerMode(t *testing.T) {
	requireBwrap(t)
	outside := t.TempDir() // a sibling of root: outside the workspace
	for _, tc := range []struct {
		name   string
		mode   Mode
		script string
		ok     bool
	}{
		{"workspace-write: the cwd is writable", WorkspaceWrite, "echo hi > in.txt", true},
		{"workspace-write: the private tmp is writable", WorkspaceWrite, "echo hi > /tmp/x && cat /tmp/x", true},
		{"workspace-write: outside the cwd is not", WorkspaceWrite, "echo hi > " + filepath.Join(outside, "out.txt"), false},
		{"workspace-write: the home dir is not", WorkspaceWrite, "touch \"$HOME/.hub-sandbox-probe\"", false},
		{"read-only: the cwd is not writable", ReadOnly, "echo hi > in.txt", false},
		{"read-only: outside the cwd is not", ReadOnly, "echo hi > " + filepath.Join(outside, "out.txt"), false},
		{"read-only: reading the cwd works", ReadOnly, "cat seed.txt", true},
		{"read-only: the user's tools run", ReadOnly, "ls / >/dev/null && command -v bash", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "seed.txt"), []byte("seed"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, ok := run(t, Policy{Mode: tc.mode}, root, tc.script)
			if ok != tc.ok {
				t.Fatalf("%q under %s: success %v, want %v; output:\n%s", tc.script, tc.mode, ok, tc.ok, out)
			}
			if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
				t.Fatalf("%q wrote outside the workspace", tc.script)
			}
			if home, _ := os.UserHomeDir(); home != "" {
				if _, err := os.Stat(filepath.Join(home, ".hub-sandbox-probe")); err == nil {
					_ = os.Remove(filepath.Join(home, ".hub-sandbox-probe"))
					t.Fatalf("%q wrote to the home dir", tc.script)
				}
			}
		})
	}
}

func TestBwrap_NetworkOffUnlessAllowed(t *testing.T) {
	requireBwrap(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := "exec 3<>/dev/tcp/127.0.0.1/" + itoa(port) + " && echo connected"
	for _, tc := range []struct {
		name    string
		network bool
		ok      bool
	}{
		{"network off", false, false},
		{"network = true", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ok := run(t, Policy{Mode: WorkspaceWrite, Network: tc.network}, t.TempDir(), script)
			if ok != tc.ok || ok != strings.Contains(out, "connected") {
				t.Fatalf("connect to loopback port %d with network=%v: success %v, want %v; output:\n%s", port, tc.network, ok, tc.ok, out)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCheck_BwrapWorksHere(t *testing.T) {
	requireBwrap(t)
	if err := New(Policy{Mode: WorkspaceWrite}, nil).Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	broken := New(Policy{Mode: WorkspaceWrite}, func(string) (string, error) { return "/bin/false", nil })
	if err := broken.Check(context.Background()); err == nil {
		t.Fatal("a sandbox tool that fails passed the check")
	}
}

func TestChecked_AToolThatFailsLeavesCommandsUnconfinedWithANotice(t *testing.T) {
	s := Checked(context.Background(), Policy{Mode: WorkspaceWrite}, func(string) (string, error) { return "/bin/false", nil })
	if s.Active() || !strings.Contains(s.Notice(), "not sandboxed") || !strings.Contains(s.Notice(), "fails here") {
		t.Fatalf("Active %v, notice %q; want unconfined with a notice naming the failure", s.Active(), s.Notice())
	}
	requireBwrap(t)
	if s := Checked(context.Background(), Policy{Mode: WorkspaceWrite}, nil); !s.Active() {
		t.Fatalf("working bwrap not active: %s", s.Status())
	}
}

// The user's credential stores are hidden from a sandboxed command, in a
// workspace under the home directory that stays writable.
func TestBwrap_HidesCredentialStores(t *testing.T) {
	requireBwrap(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	for name, content := range map[string]string{".ssh/id_ed25519": "PRIVATE-KEY", ".netrc": "machine x password HUNTER2", ".aws/credentials": "AWS-SECRET"} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(home, "project")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	out, ok := run(t, Policy{Mode: WorkspaceWrite}, root,
		`cat "$HOME/.ssh/id_ed25519" "$HOME/.netrc" "$HOME/.aws/credentials" 2>&1; echo "ls:[$(ls -A "$HOME/.ssh")]"; echo made > in.txt && cat in.txt`)
	for _, secret := range []string{"PRIVATE-KEY", "HUNTER2", "AWS-SECRET"} {
		if strings.Contains(out, secret) {
			t.Fatalf("the sandboxed command read %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "ls:[]") {
		t.Fatalf("~/.ssh is not empty in the sandbox:\n%s", out)
	}
	if !ok || !strings.Contains(out, "made") {
		t.Fatalf("the workspace under home is not usable (ok %v):\n%s", ok, out)
	}
}
