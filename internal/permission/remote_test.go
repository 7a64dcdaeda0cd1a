package permission

import (
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fspath"
)

// Deciding on a line that names a path on another machine never asks the
// file system for it (on Windows, a lookup sends the user's NTLM hash to
// the host), and the line is asked, an "always" for it kept from covering
// it again. Off Windows these spellings are local or relative names.
func TestDecide_RemotePathsAreNeverLookedUp(t *testing.T) {
	var looked []string
	orig := lookupName
	lookupName = func(p string) string {
		p = orig(p)
		looked = append(looked, p)
		return p
	}
	t.Cleanup(func() { lookupName = orig })
	ps, sh, cmd := adapters.ShellPowerShell, adapters.ShellSh, adapters.ShellCmd
	for _, tt := range []struct {
		shell adapters.Shell
		line  string
	}{
		{sh, `cat \\\\host\\share\\x`},
		{sh, `cat '\\host\share\x'`},
		{sh, `git -C //host/share/repo status`},
		{sh, `cd //host/s && npm test`},
		{sh, `cd '\\host\s' && npm test`},
		{sh, `go generate //host/share/pkg`},
		{sh, `ln -sfn //host/share/x keys`},
		{sh, `rm -rf //host/share`},
		{sh, `cp -r //host/share/tpl/* .`},
		{sh, `cat '\\?\UNC\host\share\x'`},
		{sh, `cat '\\host@SSL\DavWWWRoot\x'`},
		{sh, `cat '\\host@80\x'`},
		{ps, `Get-Content \\host@SSL\x`},
		{ps, `Set-Location \\host\s; npm test`},
		{ps, `Remove-Item -Recurse -Force \\host\share`},
		{cmd, `type \\host\share\x`},
		{cmd, `cd /d \\host\s && npm test`},
		{ps, `reg delete \\host\HKLM\SOFTWARE\MyApp /f`},
		{cmd, `reg query \\host\HKLM\SOFTWARE`},
		{ps, `Invoke-Command -ComputerName host { Get-Content \\host\share\x }`},
	} {
		looked = nil
		s := mustNew(t)
		req := Request{Tool: "bash", Kind: "execute", Command: tt.line, Cwd: osAbs(defaultShapeCwd), Shell: tt.shell}
		if v, _ := s.Decide(req); v.Decision == Allow {
			t.Errorf("%q: %+v, want it asked", tt.line, v)
		}
		s.Remember(req, adapters.AllowAlways)
		if v, _ := s.Decide(req); v.Decision == Allow && runtime.GOOS == "windows" { // elsewhere \\host is a relative name
			t.Errorf("%q after an always for it: %+v, want it asked", tt.line, v)
		}
		for _, p := range looked {
			if vol, _ := fspath.SplitPath("windows", p); runtime.GOOS == "windows" && strings.HasPrefix(vol, `\\`) {
				t.Errorf("%q: the file system was asked for %s", tt.line, p)
			}
		}
	}
}

// A workspace on another machine: hub looks up nothing there, so it
// cannot see where a link in it leads, and no "always" covers a command
// run in it (one for a local workspace still does).
func TestCoverable_WorkspaceOnAnotherMachineNeverCovered(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("a path on another machine is a Windows path")
	}
	for _, tt := range []struct {
		cwd  string
		want bool
	}{
		{`\\server\share\proj`, false},
		{`//server/share/proj`, false},
		{osAbs(defaultShapeCwd), true},
	} {
		req := Request{Tool: "bash", Kind: "execute", Command: "cat README.md", Cwd: tt.cwd}
		if got := Coverable(req); got != tt.want {
			t.Errorf("cwd %s: Coverable %v, want %v", tt.cwd, got, tt.want)
		}
	}
}
