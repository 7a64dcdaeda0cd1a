//go:build !windows

package delegation

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// ask delegates once through r and fails the test unless the host answered.
func ask(t *testing.T, r *Remote, prompt string) {
	t.Helper()
	res, err := r.Delegate(context.Background(), Request{Agent: "codex", Prompt: prompt}, nil)
	if err != nil || res.Answer != "done: "+prompt {
		t.Fatalf("Delegate %q = %+v, %v", prompt, res, err)
	}
}

// A tmp cleaner may remove the socket, or its directory, while the editor
// session lives for days: the next delegate call of a child started
// before still works, at the address in its environment, and the
// directory is private again.
func TestBridge_SurvivesItsSocketRemoved(t *testing.T) {
	tests := []struct {
		name   string
		remove func(b *Bridge) error
	}{
		{"socket", func(b *Bridge) error { return os.Remove(b.addr) }},
		{"directory", func(b *Bridge) error { return os.RemoveAll(b.dir) }},
		{"socket replaced", func(b *Bridge) error {
			if err := os.Remove(b.addr); err != nil {
				return err
			}
			return os.WriteFile(b.addr, nil, 0o600)
		}},
	}
	reopens := map[string]func(*testing.T, *Bridge){
		"Reopen": func(t *testing.T, b *Bridge) {
			if err := b.Reopen(); err != nil {
				t.Fatal(err)
			}
		},
		"the child asks": func(*testing.T, *Bridge) {}, // mid-turn, say: no turn nor agent start did
	}
	for _, tc := range tests {
		for how, reopen := range reopens {
			t.Run(tc.name+"/"+how, func(t *testing.T) {
				b := listen(t)
				defer b.Close()
				token, _ := b.Register(newFakeHost())
				r := dialBridge(t, b, token)
				ask(t, r, "before")
				if err := tc.remove(b); err != nil {
					t.Fatal(err)
				}
				reopen(t, b)
				ask(t, r, "after")
				ask(t, dialBridge(t, b, token), "from a new child")
				if fi, err := os.Stat(b.dir); err != nil || fi.Mode().Perm() != 0o700 {
					t.Fatalf("socket directory: %v %v, want 0700", fi, err)
				}
			})
		}
	}
}

// A child started while the socket was gone (an agent starting its MCP
// server mid-session) has no connection to ask on: its call fails as the
// parent's being unreachable until the parent makes the socket again (at
// the next prompt), and from then on it asks for it as a child started
// before does.
func TestBridge_ChildStartedAfterItsSocketWasRemoved(t *testing.T) {
	for _, remove := range []func(b *Bridge) error{
		func(b *Bridge) error { return os.Remove(b.addr) },
		func(b *Bridge) error { return os.RemoveAll(b.dir) },
	} {
		b := listen(t)
		defer b.Close()
		token, _ := b.Register(newFakeHost())
		if err := remove(b); err != nil {
			t.Fatal(err)
		}
		env := b.Env(token)
		r, child, err := Dial(func(k string) string { return env[k] }, zerolog.Nop())
		if !child || !errors.Is(err, ErrNoParent) {
			t.Fatalf("Dial with the socket gone: child=%v err=%v", child, err)
		}
		defer r.Close()
		if _, err := r.Delegate(context.Background(), Request{Agent: "codex", Prompt: "x"}, nil); !errors.Is(err, ErrNoParent) || !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Delegate with the socket gone = %v, want ErrNoParent for the missing socket", err)
		}
		if err := b.Reopen(); err != nil { // as the session's next prompt does
			t.Fatal(err)
		}
		ask(t, r, "after the parent made it again")
		if err := remove(b); err != nil {
			t.Fatal(err)
		}
		ask(t, r, "after it was removed again")
	}
}

// Once the bridge's directory is gone, its name in a shared /tmp is free to
// anyone: the bridge does not serve from a directory others may enter, and
// a child does not send its token to a socket there.
func TestBridge_NeverUsesASquattedDirectory(t *testing.T) {
	b := listen(t)
	defer b.Close()
	token, _ := b.Register(newFakeHost())
	r := dialBridge(t, b, token)
	if err := os.RemoveAll(b.dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(b.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(b.dir, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	squat, err := net.Listen("unix", b.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer squat.Close()
	got := make(chan string, 1)
	go func() {
		nc, err := squat.Accept()
		if err != nil {
			return
		}
		line, _ := bufio.NewReader(nc).ReadString('\n')
		got <- line // before the child's call can fail
		nc.Close()
	}()

	if err := b.Reopen(); err == nil {
		t.Fatal("Reopen serves from a directory others may enter")
	}
	if _, err := r.Delegate(context.Background(), Request{Agent: "codex", Prompt: "x"}, nil); !errors.Is(err, ErrNoParent) {
		t.Fatalf("Delegate = %v, want ErrNoParent", err)
	}
	select {
	case line := <-got:
		t.Fatalf("the child sent %q to a socket in a squatted directory", line)
	default:
	}
	if _, err := os.Lstat(b.addr); err != nil {
		t.Fatalf("the squatter's socket was removed: %v", err)
	}
}

// The socket goes where tmp cleaners do not look (XDG_RUNTIME_DIR) when
// set, and to /tmp when the temp directory is too deep for a socket path
// (104 bytes on macOS, 108 on Linux); Close removes it all, after a reopen
// too.
func TestListen_PlacesTheSocketWhereItFits(t *testing.T) {
	runtimeDir, err := os.MkdirTemp("/tmp", "run-") // short, as /run/user/1000
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtimeDir) })
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 110))
	if err := os.Mkdir(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, xdg, tmp, want string
	}{
		{"runtime dir", runtimeDir, deep, runtimeDir},
		{"deep TMPDIR", "", deep, "/tmp"},
		{"deep both", deep, deep, "/tmp"},
		{"relative runtime dir", "run", "/tmp", "/tmp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_RUNTIME_DIR", tc.xdg)
			t.Setenv("TMPDIR", tc.tmp)
			b := listen(t)
			token, _ := b.Register(newFakeHost())
			if filepath.Dir(b.dir) != tc.want {
				t.Errorf("socket at %s, want it in %s", b.addr, tc.want)
			}
			ask(t, dialBridge(t, b, token), "x")
			if err := os.RemoveAll(b.dir); err != nil {
				t.Fatal(err)
			}
			if err := b.Reopen(); err != nil {
				t.Fatal(err)
			}
			b.Close()
			if _, err := os.Lstat(b.dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("after Close, %s: %v, want it gone", b.dir, err)
			}
		})
	}
}
