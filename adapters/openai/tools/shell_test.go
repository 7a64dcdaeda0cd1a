package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/sandbox"
)

func TestChooseShell_PerOSAndInstall(t *testing.T) {
	winEnv := map[string]string{
		"ProgramFiles":      `C:\Program Files`,
		"ProgramFiles(x86)": `C:\Program Files (x86)`,
		"LOCALAPPDATA":      `C:\Users\a\AppData\Local`,
		"SystemRoot":        `C:\Windows`,
	}
	tests := []struct {
		name   string
		goos   string
		env    map[string]string
		files  []string          // paths that exist
		onPath map[string]string // lookPath results
		want   shell
	}{
		{"linux bash", "linux", nil, nil, map[string]string{"bash": "/usr/bin/bash"}, shell{Path: "bash", Name: "bash"}},
		{"linux no bash", "linux", nil, nil, nil, shell{Path: "sh", Name: "sh"}},
		{"darwin bash", "darwin", nil, nil, map[string]string{"bash": "/bin/bash"}, shell{Path: "bash", Name: "bash"}},
		{"git in Program Files", "windows", winEnv, []string{`C:\Program Files\Git\bin\bash.exe`}, nil,
			shell{Path: `C:\Program Files\Git\bin\bash.exe`, Name: "Git Bash", Windows: true}},
		{"git in Program Files (x86)", "windows", winEnv, []string{`C:\Program Files (x86)\Git\bin\bash.exe`}, nil,
			shell{Path: `C:\Program Files (x86)\Git\bin\bash.exe`, Name: "Git Bash", Windows: true}},
		{"git per user", "windows", winEnv, []string{`C:\Users\a\AppData\Local\Programs\Git\bin\bash.exe`}, nil,
			shell{Path: `C:\Users\a\AppData\Local\Programs\Git\bin\bash.exe`, Name: "Git Bash", Windows: true}},
		{"git.exe on PATH", "windows", winEnv, []string{`D:\tools\Git\bin\bash.exe`}, map[string]string{"git.exe": `D:\tools\Git\cmd\git.exe`},
			shell{Path: `D:\tools\Git\bin\bash.exe`, Name: "Git Bash", Windows: true}},
		{"git.exe from mingw64", "windows", winEnv, []string{`D:\Git\bin\bash.exe`}, map[string]string{"git.exe": `D:\Git\mingw64\bin\git.exe`},
			shell{Path: `D:\Git\bin\bash.exe`, Name: "Git Bash", Windows: true}},
		{"WSL bash skipped for pwsh", "windows", winEnv, []string{`C:\Windows\System32\bash.exe`},
			map[string]string{"bash.exe": `C:\Windows\System32\bash.exe`, "pwsh.exe": `C:\Program Files\PowerShell\7\pwsh.exe`},
			shell{Path: `C:\Program Files\PowerShell\7\pwsh.exe`, Name: "PowerShell 7", PowerShell: true, Windows: true}},
		{"WindowsApps bash skipped", "windows", winEnv, []string{`C:\Users\a\AppData\Local\Microsoft\WindowsApps\bash.exe`},
			map[string]string{"bash.exe": `C:\Users\a\AppData\Local\Microsoft\WindowsApps\bash.exe`, "powershell.exe": `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`},
			shell{Path: `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, Name: "Windows PowerShell", PowerShell: true, Windows: true}},
		{"msys2 bash on PATH", "windows", winEnv, []string{`C:\msys64\usr\bin\bash.exe`}, map[string]string{"bash.exe": `C:\msys64\usr\bin\bash.exe`},
			shell{Path: `C:\msys64\usr\bin\bash.exe`, Name: "Git Bash", Windows: true}},
		{"nothing found", "windows", winEnv, nil, nil,
			shell{Path: `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, Name: "Windows PowerShell", PowerShell: true, Windows: true}},
		{"empty environment", "windows", nil, nil, nil,
			shell{Path: "powershell.exe", Name: "Windows PowerShell", PowerShell: true, Windows: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exists := func(p string) bool {
				for _, f := range tt.files {
					if f == p {
						return true
					}
				}
				return false
			}
			lookPath := func(name string) (string, error) {
				if p, ok := tt.onPath[name]; ok {
					return p, nil
				}
				return "", errors.New("not found")
			}
			got := chooseShell(tt.goos, func(k string) string { return tt.env[k] }, exists, lookPath)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestShellArgs_PerShellKind(t *testing.T) {
	ps := shell{Path: "pwsh.exe", PowerShell: true}
	bash := shell{Path: "bash"}
	tests := []struct {
		name  string
		sh    shell
		local bool
		want  []string
	}{
		{"bash local merges stderr", bash, true, []string{"-c", "exec 2>&1\necho hi"}},
		{"bash terminal", bash, false, []string{"-c", "echo hi"}},
		{"powershell", ps, true, []string{"-NoProfile", "-NonInteractive", "-Command", psPrelude + "echo hi"}},
		{"powershell terminal", ps, false, []string{"-NoProfile", "-NonInteractive", "-Command", psPrelude + "echo hi"}},
	}
	for _, tt := range tests {
		if got := tt.sh.args("echo hi", tt.local); strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDefinitions_BashDescriptionNamesShell(t *testing.T) {
	tests := []struct {
		sh           shell
		want, absent string
	}{
		{shell{Path: "bash", Name: "bash"}, "Run a shell command with bash in the workspace root", "PowerShell"},
		{shell{Path: "sh", Name: "sh"}, "Run a shell command with sh in the workspace root", "PowerShell"},
		{shell{Name: "Git Bash", Windows: true}, "with Git Bash (Git for Windows", "PowerShell"},
		{shell{Name: "PowerShell 7", PowerShell: true, Windows: true}, "Runs a command in PowerShell 7 (Windows; no bash available): use PowerShell syntax", "cat, grep"},
		{shell{Name: "Windows PowerShell", PowerShell: true, Windows: true}, "Runs a command in Windows PowerShell (Windows; no bash available)", "cat, grep"},
	}
	for _, tt := range tests {
		var bash Definition
		for _, d := range definitions(tt.sh) {
			if d.Name == "bash" {
				bash = d
			}
			if strings.Contains(d.Description, "{{") || d.Description == "" {
				t.Errorf("%s: description not rendered: %q", d.Name, d.Description)
			}
		}
		if !strings.Contains(bash.Description, tt.want) || strings.Contains(bash.Description, tt.absent) {
			t.Errorf("%s: %q", tt.sh.Name, bash.Description)
		}
	}
}

// A PowerShell stand-in: prints the flags it got and writes to stderr,
// which only the stderr tee can bring into the output.
func TestBash_PowerShellFlagsAndStderrMerged(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a #! script")
	}
	e := newTestEnv(t)
	e.Sandbox = sandbox.New(sandbox.Policy{Mode: sandbox.Off}, nil) // the stand-in lives outside the workspace
	fake := filepath.Join(t.TempDir(), "fakepwsh")
	must(t, os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s|' \"$1\" \"$2\" \"$3\"\necho\necho to-stderr >&2\nexit 4\n"), 0o755))
	e.shell = shell{Path: fake, Name: "PowerShell 7", PowerShell: true, Windows: true}
	r, err := runTool(t, e, "bash", `{"command":"Get-ChildItem"}`)
	if err != nil || !r.Failed || !strings.Contains(r.Output, "-NoProfile|-NonInteractive|-Command|") ||
		!strings.Contains(r.Output, "to-stderr") || !strings.Contains(r.Output, "exit code 4") {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestBash_TerminalUsesChosenShell(t *testing.T) {
	e := newTestEnv(t)
	e.Sandbox = sandbox.New(sandbox.Policy{Mode: sandbox.Off}, nil) // this checks the shell, not its wrapping
	ed := &termEditor{}
	e.Editor = ed
	e.shell = shell{Path: `C:\Program Files\PowerShell\7\pwsh.exe`, Name: "PowerShell 7", PowerShell: true, Windows: true}
	if _, err := runTool(t, e, "bash", `{"command":"dir"}`); err != nil {
		t.Fatal(err)
	}
	if ed.command != e.shell.Path || len(ed.args) != 4 || ed.args[2] != "-Command" || !strings.HasSuffix(ed.args[3], "dir") {
		t.Fatalf("terminal/create got %q %q", ed.command, ed.args)
	}
}

func TestFirstLine_DropsCR(t *testing.T) {
	if got := firstLine("dir\r\necho x"); got != "dir …" {
		t.Fatalf("%q", got)
	}
}

var _ adapters.EditorClient = (*termEditor)(nil)

// termEditor is an editor with only a terminal that records what it ran.
type termEditor struct {
	command string
	args    []string
}

func (*termEditor) CanReadFile() bool  { return false }
func (*termEditor) CanWriteFile() bool { return false }
func (*termEditor) CanTerminal() bool  { return true }
func (*termEditor) ReadTextFile(context.Context, string, int, int) (string, error) {
	return "", errors.New("no fs")
}
func (*termEditor) WriteTextFile(context.Context, string, string) error { return errors.New("no fs") }

func (t *termEditor) Call(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "terminal/create":
		var p struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		t.command, t.args = p.Command, p.Args
		return json.RawMessage(`{"terminalId":"t1"}`), nil
	case "terminal/wait_for_exit":
		return json.RawMessage(`{"exitCode":0}`), nil
	}
	return json.RawMessage(`{}`), nil
}
