package claude

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hubdev/hub/adapters/agentspec"
)

func TestClaudeAuthOn_MacOSKeychainIsUnknownNotLoggedOut(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".claude")
	withCreds := t.TempDir()
	if err := os.WriteFile(filepath.Join(withCreds, ".credentials.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, goos, cfgDir string
		env                map[string]string
		state              string
		reason             bool
	}{
		{"linux without a login", "linux", cfg, nil, agentspec.AuthNone, false},
		{"macOS without a file: the Keychain may hold it", "darwin", cfg, nil, agentspec.AuthUnknown, true},
		{"macOS with an API key", "darwin", cfg, map[string]string{"ANTHROPIC_API_KEY": "k"}, agentspec.AuthAPIKey, false},
		{"macOS with a credentials file", "darwin", withCreds, nil, agentspec.AuthSubscription, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := claudeAuthOn(tt.goos)(func(k string) string { return tt.env[k] }, tt.cfgDir, home)
			if a.State != tt.state || (a.Reason != "") != tt.reason {
				t.Fatalf("auth %+v, want state %s (reason %v)", a, tt.state, tt.reason)
			}
		})
	}
}
