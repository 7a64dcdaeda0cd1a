package permission

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// knownShellRequest is line as the native loop's bash tool asks for it
// when it runs in shell.
func knownShellRequest(shell adapters.Shell, line string) Request {
	str, _ := json.Marshal(line)
	cwd, _ := filepath.Abs(defaultShapeCwd) // on Windows, /work/… has no drive: its files would be outside the workspace
	return RequestOf(adapters.ToolCall{Name: "bash", Kind: adapters.KindExecute, RawInput: json.RawMessage(`{"command":` + string(str) + `}`), Shell: shell},
		cwd)
}

// A line whose shell the tool knows is read once, in that shell, by every
// check: the hard deny list, the rules, what must be asked.
func TestKnownShell_ReadInItsShell(t *testing.T) {
	rule := func(cmd, d string) config.PermissionRule {
		return config.PermissionRule{Tool: "bash", Command: cmd, Decision: d}
	}
	ps, sh, cmd := adapters.ShellPowerShell, adapters.ShellSh, adapters.ShellCmd
	for _, tt := range []struct {
		name  string
		rules []config.PermissionRule
		shell adapters.Shell
		line  string
		want  Decision // "" undecided
		hard  bool
		must  bool
	}{
		// A deny rule names the cmdlet (or the program it stands for) and
		// matches every alias of it.
		{"deny Remove-Item, ri", []config.PermissionRule{rule("Remove-Item", "deny")}, ps, `ri -r build`, Deny, false, false},
		{"deny Remove-Item, del", []config.PermissionRule{rule("Remove-Item", "deny")}, ps, `del .\build -Recurse`, Deny, false, false},
		{"deny Remove-Item, rm", []config.PermissionRule{rule("Remove-Item", "deny")}, ps, `rm -r build`, Deny, false, false},
		{"deny Remove-Item, erase", []config.PermissionRule{rule("remove-item", "deny")}, ps, `ERASE build`, Deny, false, false},
		{"deny Remove-Item, rd", []config.PermissionRule{rule("Remove-Item", "deny")}, ps, `rd build -r`, Deny, false, false},
		{"deny Remove-Item, module name", []config.PermissionRule{rule("Remove-Item", "deny")}, ps, `Microsoft.PowerShell.Management\Remove-Item build`, Deny, false, false},
		{"deny an alias, its own", []config.PermissionRule{rule("del", "deny")}, ps, `del build`, Deny, false, false},
		{"deny an alias, ri", []config.PermissionRule{rule("ri", "deny")}, ps, `ri -r build`, Deny, false, false},
		{"allow an alias, its own", []config.PermissionRule{rule("gci", "allow")}, ps, `gci -Recurse src`, Allow, false, false},
		{"deny rm, Remove-Item", []config.PermissionRule{rule("rm", "deny")}, ps, `Remove-Item -Recurse build`, Deny, false, false},
		{"deny Remove-Item spares Get-ChildItem", []config.PermissionRule{rule("Remove-Item", "deny")}, ps, `Get-ChildItem -Recurse build`, "", false, false},
		// An allow rule allows only what PowerShell runs: @(…) runs code.
		{"allow npm test, @( ) inside", []config.PermissionRule{rule("npm test", "allow")}, ps, `npm test @(Remove-Item -Recurse src)`, "", false, false},
		{"allow npm test, plain", []config.PermissionRule{rule("npm test", "allow")}, ps, `npm test`, Allow, false, false},
		{"allow npm test, a script block", []config.PermissionRule{rule("npm test", "allow")}, ps, `npm test; & { Remove-Item -Recurse src }`, "", false, false},
		// A secret named as PowerShell names it is asked every time.
		{"secret by $HOME", []config.PermissionRule{rule("Get-Content", "allow")}, ps, `Get-Content $HOME\.ssh\id_rsa`, Ask, false, true},
		{"secret by $env:USERPROFILE", []config.PermissionRule{{Tool: "*", Decision: "allow"}}, ps, `gc $env:USERPROFILE\.aws\credentials`, Ask, false, true},
		// The hard deny list reads the shell's line.
		{"powershell home delete", nil, ps, `Remove-Item -Recurse -Force ~`, Deny, true, false},
		{"cmd home delete", nil, cmd, `rd /s /q %USERPROFILE%`, Deny, true, false},
		{"sh in powershell", nil, ps, `bash -c 'rm -rf ~'`, Deny, true, false},
		{"sh home delete", nil, sh, `rm -rf ~`, Deny, true, false},
		// sh runs no cmdlet: bash reports a command it cannot find.
		{"a cmdlet in sh", nil, sh, `Remove-Item -Recurse -Force ~`, "", false, false},
		{"harmless powershell", nil, ps, `Get-ChildItem -Recurse src | Select-String TODO`, "", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(config.PermissionsConfig{Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			v, decided := s.Decide(knownShellRequest(tt.shell, tt.line))
			if !decided {
				v.Decision = ""
			}
			if v.Decision != tt.want || v.Hard != tt.hard || v.Must != tt.must {
				t.Errorf("%s %q: %+v, want %q (hard %v, must %v)", tt.shell, tt.line, v, tt.want, tt.hard, tt.must)
			}
		})
	}
}

// sh gives pwsh a home with a space or a comma as one word: after
// -CommandWithArgs's code it is one value ($args[0]), so the sh reading
// alone refuses it as the PowerShell reading of the raw line did.
func TestKnownShell_PwshGetsAHomeWithASpace(t *testing.T) {
	t.Setenv("HOME", "/work/users/John Smith, Jr")
	for _, tt := range []struct {
		line string
		deny bool
	}{
		{`pwsh -CommandWithArgs 'Remove-Item -Recurse $args[0]' ~`, true},
		{`pwsh -cwa 'Remove-Item -Recurse -Path $args[0]' "$HOME"`, true},
		{`pwsh -Command { Remove-Item -Recurse ~ }`, true},
		{`pwsh -Command Remove-Item -Recurse ~/.ssh`, true},
		{`pwsh -Command Write-Output 'a, b' ~`, false},
		{`pwsh -CommandWithArgs 'Get-ChildItem $args[0]' ~`, false},
	} {
		for _, shell := range []adapters.Shell{adapters.ShellSh, adapters.ShellUnknown} {
			if v, _ := mustNew(t).Decide(knownShellRequest(shell, tt.line)); v.Hard != tt.deny {
				t.Errorf("%s %q: %+v, want hard deny %v", shell, tt.line, v, tt.deny)
			}
		}
	}
}

// An "always" for a PowerShell line covers what PowerShell runs of it, no
// more: a destructive cmdlet or code in a script block only itself, a
// line with a word only PowerShell knows not even that.
func TestKnownShell_AlwaysNoBroaderThanShown(t *testing.T) {
	ps := adapters.ShellPowerShell
	for _, tt := range []struct {
		shown, later string
		again        bool // the shown line is covered when it comes again
		covered      bool // the later line is covered
	}{
		{`Remove-Item .\build -Recurse`, `Remove-Item .\src -Recurse`, true, false},
		{`Remove-Item .\build -Recurse`, `Remove-Item ~\Documents -Recurse`, true, false},
		// What a script block's or a subexpression's code writes is asked
		// every time (its output's target is unknown).
		{`Measure-Command { Remove-Item -Recurse ./build }`, `Measure-Command { Remove-Item -Recurse ./src }`, false, false},
		{`Write-Output (Remove-Item -Recurse ./build)`, `Write-Output (Remove-Item -Recurse ./src)`, false, false},
		{`Remove-Item $env:TEMP\x -Recurse`, `Remove-Item $env:TEMP\x -Recurse`, false, false},
		{`Get-Content .\notes.txt`, `Get-Content $HOME\.ssh\id_rsa`, true, false},
		{`git status`, `git push`, true, false},
		{`git log .\a`, `git log .\b`, true, true}, // operands are free, as for sh
		{`go test ./pkg/a`, `go test ./pkg/b`, true, true},
	} {
		s := mustNew(t)
		s.Remember(knownShellRequest(ps, tt.shown), adapters.AllowAlways)
		if v := s.Check(knownShellRequest(ps, tt.shown)); (v.Decision == Allow) != tt.again {
			t.Errorf("always for %q, again: %+v, want covered %v", tt.shown, v, tt.again)
		}
		if v := s.Check(knownShellRequest(ps, tt.later)); (v.Decision == Allow) != tt.covered {
			t.Errorf("always for %q, then %q: %+v, want covered %v", tt.shown, tt.later, v, tt.covered)
		}
		// Nor does it cover the same words in another shell.
		if v := s.Check(knownShellRequest(adapters.ShellUnknown, tt.shown)); v.Decision == Allow {
			t.Errorf("always for PowerShell's %q covers the raw line: %+v", tt.shown, v)
		}
	}
}
