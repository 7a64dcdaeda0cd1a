package tools

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fspath"
)

// shell is the program the bash tool hands commands to.
type shell struct {
	Path       string // program name or path
	Name       string // how the tool description calls it, e.g. "Git Bash"
	PowerShell bool   // PowerShell syntax and flags instead of POSIX sh
	Windows    bool   // the host, for the description's hints
}

// psPrelude makes Windows PowerShell 5.1 and pwsh behave in a pipe: no
// progress records on stderr, UTF-8 to and from native programs, and
// UTF-8 instead of UTF-16 files from > redirection (5.1's default).
const psPrelude = "$ProgressPreference='SilentlyContinue'; " +
	"[Console]::OutputEncoding=[System.Text.Encoding]::UTF8; " +
	"$PSDefaultParameterValues['Out-File:Encoding']='utf8'\n"

// args: local runs merge stderr into stdout in the shell when it can.
func (s shell) args(command string, local bool) []string {
	if s.PowerShell {
		return []string{"-NoProfile", "-NonInteractive", "-Command", psPrelude + command}
	}
	if local {
		command = "exec 2>&1\n" + command
	}
	return []string{"-c", command}
}

// Shell is the grammar the bash tool's commands are read in.
func (e *Env) Shell() adapters.Shell {
	if e.shell.PowerShell {
		return adapters.ShellPowerShell
	}
	return adapters.ShellSh
}

func (e *Env) UseShell(s adapters.Shell) {
	e.shell = shell{Path: "sh", Name: "sh", Windows: e.shell.Windows}
	if s == adapters.ShellPowerShell {
		e.shell = shell{Path: "pwsh", Name: "PowerShell 7", PowerShell: true, Windows: e.shell.Windows}
	}
}

var hostShell = sync.OnceValue(func() shell {
	return chooseShell(runtime.GOOS, os.Getenv, fileExists, exec.LookPath)
})

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func chooseShell(goos string, getenv func(string) string, exists func(string) bool, lookPath func(string) (string, error)) shell {
	if goos != "windows" {
		if _, err := lookPath("bash"); err == nil {
			return shell{Path: "bash", Name: "bash"}
		}
		return shell{Path: "sh", Name: "sh"}
	}
	if p := gitBash(getenv, exists, lookPath); p != "" {
		return shell{Path: p, Name: "Git Bash", Windows: true}
	}
	if p, err := lookPath("pwsh.exe"); err == nil {
		return shell{Path: p, Name: "PowerShell 7", PowerShell: true, Windows: true}
	}
	p, err := lookPath("powershell.exe")
	if sys := getenv("SystemRoot"); err != nil && sys != "" {
		p = winJoin(sys, `System32\WindowsPowerShell\v1.0\powershell.exe`)
	} else if err != nil {
		p = "powershell.exe"
	}
	return shell{Path: p, Name: "Windows PowerShell", PowerShell: true, Windows: true}
}

// gitBash never returns WSL's bash.exe (System32 or WindowsApps), which runs
// in a Linux VM that sees other paths and tools than the workspace's.
func gitBash(getenv func(string) string, exists func(string) bool, lookPath func(string) (string, error)) string {
	var cands []string
	for _, v := range [][2]string{{"ProgramFiles", `Git`}, {"ProgramW6432", `Git`}, {"ProgramFiles(x86)", `Git`}, {"LOCALAPPDATA", `Programs\Git`}} {
		if d := getenv(v[0]); d != "" {
			cands = append(cands, winJoin(d, v[1]+`\bin\bash.exe`))
		}
	}
	if git, err := lookPath("git.exe"); err == nil {
		// git.exe lives in Git\cmd (usual) or Git\mingw64\bin.
		cands = append(cands, winJoin(git, `..\..\bin\bash.exe`), winJoin(git, `..\..\..\bin\bash.exe`))
	}
	if p, err := lookPath("bash.exe"); err == nil {
		cands = append(cands, p)
	}
	for _, c := range cands {
		if exists(c) && !isWSLBash(getenv, c) {
			return c
		}
	}
	return ""
}

func isWSLBash(getenv func(string) string, p string) bool {
	if sys := getenv("SystemRoot"); sys != "" && fspath.Within("windows", winJoin(sys, "System32"), p) {
		return true
	}
	_, names := fspath.SplitPath("windows", p)
	return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, "WindowsApps") })
}

// winJoin joins and cleans Windows path parts on any host.
func winJoin(base, rel string) string {
	vol, names := fspath.SplitPath("windows", base+`\`+rel)
	return vol + `\` + strings.Join(names, `\`)
}
