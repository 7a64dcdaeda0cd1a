package adapters

import (
	"runtime"
	"testing"
)

func TestAgentPath_AgentsOwnStyle(t *testing.T) {
	tests := []struct {
		goos, cwd, p, want string // goos "" runs everywhere
		ok                 bool
	}{
		{"", "/repo", "notes.txt", "/repo/notes.txt", true},
		{"", "/repo", "a/../b.txt", "/repo/b.txt", true},
		{"", "/repo", "/etc/x", "/etc/x", true},
		{"", "", "/home/dev/x.txt", "/home/dev/x.txt", true},
		{"", "", "notes.txt", "", false},
		{"", "/repo", "", "", false},
		{"linux", "/srv/w", "/srv/w/x", "/srv/w/x", true},
		{"windows", `C:\w`, `sub\x.go`, `C:\w\sub\x.go`, true},
		{"windows", `C:\w`, `D:\x.go`, `D:\x.go`, true},
		{"windows", `C:\w`, `\x\y.go`, `C:\x\y.go`, true},
		{"windows", `C:\w`, `/x/y.go`, `C:\x\y.go`, true},
		{"windows", `\\srv\share\w`, `a.go`, `\\srv\share\w\a.go`, true},
	}
	for _, tt := range tests {
		if tt.goos != "" && tt.goos != runtime.GOOS {
			continue
		}
		if got, ok := AgentPath(tt.cwd, tt.p); got != tt.want || ok != tt.ok {
			t.Errorf("AgentPath(%q, %q) = %q, %v; want %q, %v", tt.cwd, tt.p, got, ok, tt.want, tt.ok)
		}
	}
}
