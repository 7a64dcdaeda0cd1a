package detect

import (
	"testing"

	"github.com/hubdev/hub/adapters/agentspec"
)

func envOf(m map[string]string) agentspec.Env { return func(k string) string { return m[k] } }

func TestLoginShell_UsersShellElseOSDefault(t *testing.T) {
	tests := []struct {
		goos, shell, want string
	}{
		{"darwin", "", "/bin/zsh"},
		{"darwin", "/opt/homebrew/bin/fish", "/opt/homebrew/bin/fish"},
		{"linux", "", ""},
		{"linux", "/bin/bash", "/bin/bash"},
		{"windows", `C:\Program Files\Git\bin\bash.exe`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.goos+" "+tt.shell, func(t *testing.T) {
			if got := loginShell(tt.goos, envOf(map[string]string{"SHELL": tt.shell})); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHomeDir_UserProfileOnWindows(t *testing.T) {
	env := envOf(map[string]string{"USERPROFILE": `C:\Users\me`})
	if got := homeDir("windows", env); got != `C:\Users\me` {
		t.Fatalf("windows home %q", got)
	}
	if got := homeDir("linux", env); got != "" {
		t.Fatalf("linux home %q, want HOME only", got)
	}
}
