package permission

import (
	"path/filepath"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// What Windows administration writes where hub cannot name it (a .reg
// file's keys, a .NET registry call, an execution policy from a variable)
// is asked every time.
func TestWinAdmin_Unclear(t *testing.T) {
	for _, tt := range []struct {
		line    string
		unclear bool
	}{
		{"reg import evil.reg", true},
		{"regedit /s evil.reg", true},
		{"regini keys.txt", true},
		{`pwsh -c '[Microsoft.Win32.Registry]::CurrentUser.DeleteSubKeyTree("Software")'`, true},
		{`pwsh -c '$k = Get-Item HKCU:\Software; $k.DeleteSubKey("x")'`, true},
		{`pwsh -c 'Set-ExecutionPolicy -ExecutionPolicy $p'`, true},
		{`reg export 'HKCU\Software\MyApp' myapp.reg`, false},
		{`pwsh -c 'Set-ExecutionPolicy RemoteSigned -Scope CurrentUser'`, false},
	} {
		if got := readLine(tt.line, []string{defaultShapeCwd}).unclear; got != tt.unclear {
			t.Errorf("%q: unclear %v, want %v", tt.line, got, tt.unclear)
		}
	}
}

// A write that runs at the next shell or login (PowerShell's profiles and
// modules, the Startup folder, a launch agent, a registry Run key) is
// asked every time, as one to ~/.bashrc is, even in a session whose
// workspace is the home itself; an ordinary file there stays covered.
func TestService_AlwaysNeverCoversStartupFiles(t *testing.T) {
	home := fakeHome(t)
	bash := func(cmd string) Request {
		return Request{Tool: "Bash", Kind: adapters.KindExecute, Command: cmd, Cwd: home}
	}
	edit := Request{Tool: "Edit", Kind: adapters.KindEdit, Path: filepath.Join(home, "Documents", "PowerShell", "Microsoft.PowerShell_profile.ps1"), Cwd: home}
	for _, req := range []Request{
		bash("echo x >> ~/.bashrc"), // the rule these follow
		bash(`pwsh -c 'Set-Content ~\Documents\PowerShell\Microsoft.PowerShell_profile.ps1 x'`),
		bash(`pwsh -c 'Add-Content $PROFILE "iex x"'`),
		bash(`pwsh -c 'Add-Content -Path $PROFILE.CurrentUserAllHosts -Value x'`),
		bash(`pwsh -c '"x" | Out-File -Append $Profile'`),
		bash(`pwsh -c 'Copy-Item evil.ps1 $PROFILE'`),
		bash(`powershell -c 'Out-File -FilePath ~\DOCUMENTS\WindowsPowerShell\profile.ps1'`),
		bash("cp evil.ps1 ~/Documents/PowerShell/Microsoft.PowerShell_profile.ps1"),
		bash("cp m.psm1 ~/Documents/PowerShell/Modules/M/M.psm1"),
		bash(`cp p.ps1 ~/"OneDrive - Acme"/Documents/WindowsPowerShell/profile.ps1`),
		bash(`cmd /c "echo x >> %USERPROFILE%\Documents\WindowsPowerShell\profile.ps1"`),
		bash(`cmd /c 'copy x.bat "%APPDATA%\Microsoft\Windows\Start Menu\Programs\Startup\x.bat"'`),
		bash(`cp x.bat ~/AppData/Roaming/Microsoft/Windows/'Start Menu'/Programs/Startup/`),
		bash("cp x.plist ~/Library/LaunchAgents/"),
		bash(`pwsh -c 'Set-ItemProperty -Path HKCU:\Software\Microsoft\Windows\CurrentVersion\Run -Name x -Value x.exe'`),
		bash(`pwsh -c 'sp HKCU:\Software\Microsoft\Windows\CurrentVersion\Run x x.exe'`),
		bash(`pwsh -c 'New-ItemProperty -Path HKCU:\Software\Microsoft\Windows\CurrentVersion\RunOnce -Name x -Value x.exe'`),
		bash(`pwsh -c 'New-Item -Path "HKCU:\Software\Classes\ms-settings\Shell\Open\command" -Force'`),
		bash(`reg add 'HKCU\Software\Microsoft\Windows\CurrentVersion\Run' /v x /d 'C:\x.exe' /f`),
		bash(`reg add "HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Winlogon" /v Userinit /d x.exe /f`),
		bash(`reg add "HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Image File Execution Options\sethc.exe" /v Debugger /d cmd.exe`),
		edit,
	} {
		s := mustNew(t)
		s.Remember(req, adapters.AllowAlways)
		if v := s.Check(req); v.Decision == Allow {
			t.Errorf("%q %s: covered by its own always: %+v", req.Command, req.Path, v)
		}
	}
	for _, cmd := range []string{`pwsh -c 'Set-Content notes.txt x'`, "cp a.ps1 b.ps1", "cp a.ps1 Documents/notes.ps1"} {
		s := mustNew(t)
		s.Remember(bash(cmd), adapters.AllowAlways)
		if v := s.Check(bash(cmd)); v.Decision != Allow {
			t.Errorf("%q: not covered by its own always: %+v", cmd, v)
		}
	}
}

// A command that acts on another machine (its registry by \\\\HOST, a
// PowerShell session or -ComputerName, in any abbreviation or splatted) is
// asked every time; the same command on this machine is covered.
func TestService_AlwaysNeverCoversRemoteCommands(t *testing.T) {
	ps, sh := adapters.ShellPowerShell, adapters.ShellSh
	for _, tt := range []struct {
		shell   adapters.Shell
		line    string
		covered bool
	}{
		{sh, `reg delete '\\buildhost\HKCU\Software\MyApp' /f`, false},
		{sh, `reg add '\\buildhost\HKCU\Software\MyApp' /v Debug /d 1 /f`, false},
		{sh, `reg query '\\buildhost\HKLM\SOFTWARE'`, false},
		{ps, `reg delete \\buildhost\HKCU\Software\MyApp /f`, false},
		{ps, `Invoke-Command -ComputerName buildhost { Get-Process }`, false},
		{ps, `icm -cn buildhost { Get-Process }`, false},
		{ps, `Invoke-Command -Comp buildhost -ScriptBlock { Get-Process }`, false},
		{ps, `Invoke-Command -ComputerName:buildhost { Get-Process }`, false},
		{ps, `Invoke-Command -Session $s { Get-Process }`, false},
		{ps, `Invoke-Command @remote { Get-Process }`, false},
		{ps, `Enter-PSSession buildhost`, false},
		{ps, `etsn -cn buildhost`, false},
		{ps, `New-PSSession -ComputerName buildhost`, false},
		{ps, `Copy-Item build.zip -ToSession $s -Destination C:\drop`, false},
		{ps, `Get-Service -ComputerName buildhost`, false},
		{sh, `pwsh -c 'Restart-Computer -ComputerName buildhost -Force'`, false},
		{ps, `Copy-Item build.zip -Destination drop.zip`, true},
		{sh, `reg query 'HKLM\SOFTWARE'`, true},
		{ps, `Get-Service`, true},
	} {
		req := Request{Tool: "bash", Kind: "execute", Command: tt.line, Cwd: osAbs(defaultShapeCwd), Shell: tt.shell}
		s := mustNew(t)
		s.Remember(req, adapters.AllowAlways)
		if v := s.Check(req); (v.Decision == Allow) != tt.covered {
			t.Errorf("%q after an always for it: %+v, want covered %v", tt.line, v, tt.covered)
		}
	}
}
