package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
	"github.com/hubdev/hub/internal/sandbox"
)

// Where no sandbox confines ripgrep (none on the host, or [sandbox] mode
// = "off"), grep searches through the workspace's os.Root instead: rg
// opens the path it is given, so a file swapped for a link to a
// credential store after the check would be read. The fake rg reads the
// file by path, as rg does.
func TestGrep_WithoutASandboxRipgrepIsNotTrusted(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	must(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	key := filepath.Join(home, ".ssh", "id_rsa")
	must(t, os.WriteFile(key, []byte("PRIVATE KEY\n"), 0o600))
	e := newTestEnv(t)
	e.Sandbox = sandbox.New(sandbox.Policy{Mode: sandbox.Off}, nil)
	x := filepath.Join(e.Root, "x.txt")
	must(t, os.WriteFile(x, []byte("x\n"), 0o644))
	bin := t.TempDir()
	proctest.Install(t, bin, "rg", "cat:"+x)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	defer func(use bool) { UseRipgrep = use }(UseRipgrep)
	UseRipgrep = true
	p, err := e.Prepare("grep", json.RawMessage(`{"pattern":"KEY","path":"x.txt"}`))
	must(t, err)
	must(t, os.Remove(x))
	must(t, os.Symlink(key, x))
	skipWithoutLinks(t, x)
	if r := p.Run(context.Background(), nil); strings.Contains(r.Output, "KEY") {
		t.Errorf("grep read the swapped-in link: %q", r.Output)
	}
}

// grep and glob check their folder when the call is prepared and search
// it later: a folder or file swapped for a link in between (to a
// credential store, here a fake home's .ssh) is not searched. The Go
// search goes through the workspace's os.Root; ripgrep, which opens by
// path, runs in the sandbox, which hides the credential stores.
func TestGrepAndGlob_LinkSwappedInAfterTheCheckIsNotFollowed(t *testing.T) {
	tests := []struct {
		name, tool, args string
		rg               bool
		swap             string // replaced by a link to the fake ~/.ssh, or to its id_rsa for a file
	}{
		{"grep, folder", "grep", `{"pattern":"KEY","path":"d"}`, false, "d"},
		{"grep, file", "grep", `{"pattern":"KEY","path":"x.txt"}`, false, "x.txt"},
		{"grep, workspace folder", "grep", `{"pattern":"KEY"}`, false, "d"},
		{"glob, folder", "glob", `{"pattern":"*","path":"d"}`, false, "d"},
		{"rg, folder", "grep", `{"pattern":"KEY","path":"d"}`, true, "d"},
		{"rg, file", "grep", `{"pattern":"KEY","path":"x.txt"}`, true, "x.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := exec.LookPath("rg"); tt.rg && (err != nil || runtime.GOOS != "linux" || !sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite}, nil).Active()) {
				t.Skip("needs rg and bwrap on Linux")
			}
			defer func(use bool) { UseRipgrep = use }(UseRipgrep)
			UseRipgrep = tt.rg
			home := t.TempDir()
			t.Setenv("HOME", home)
			must(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
			must(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE KEY\n"), 0o600))
			e := newTestEnv(t)
			must(t, os.MkdirAll(filepath.Join(e.Root, "d"), 0o755))
			must(t, os.WriteFile(filepath.Join(e.Root, "d", "a.txt"), []byte("a\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(e.Root, "x.txt"), []byte("x\n"), 0o644))
			p, err := e.Prepare(tt.tool, json.RawMessage(tt.args))
			must(t, err)
			target := filepath.Join(home, ".ssh")
			if tt.swap == "x.txt" {
				target = filepath.Join(target, "id_rsa")
			}
			swap := filepath.Join(e.Root, tt.swap)
			must(t, os.Rename(swap, swap+".moved"))
			must(t, os.Symlink(target, swap))
			skipWithoutLinks(t, swap)
			r := p.Run(context.Background(), nil)
			if strings.Contains(r.Output, "KEY") || strings.Contains(r.Output, "id_rsa") {
				t.Errorf("%s read the swapped-in link: %q", tt.tool, r.Output)
			}
			if strings.Contains(r.Output, "execvp") {
				t.Errorf("rg did not run: %q", r.Output)
			}
		})
	}
}
