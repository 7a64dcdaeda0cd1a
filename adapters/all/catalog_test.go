package all

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// fakeInstall puts programs named bins (never run: registering finds
// them) on a fresh PATH, with a fresh home and cache.
func fakeInstall(t *testing.T, bins ...string) {
	t.Helper()
	dir, home := t.TempDir(), t.TempDir()
	for _, b := range bins {
		proctest.Install(t, dir, b, "exit:0")
	}
	t.Setenv("PATH", dir)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
}

func TestRegistry_CatalogAgentsFoundWithoutConfig(t *testing.T) {
	fakeInstall(t, "opencode", "kilo", "auggie")
	cfg, err := config.Parse("test.toml", []byte(`
[agents.opencode]              # overrides field by field
args = ["acp", "--print-logs"]
env = { OPENCODE_X = "1" }
[agents.auggie]
enabled = false
[agents.copilot]               # a command of its own: registered even if missing
command = "/opt/copilot/bin/copilot"
`))
	if err != nil {
		t.Fatal(err)
	}
	r := Registry(cfg, zerolog.Nop())
	tests := []struct {
		name, argv string // argv "" means not registered
		env        map[string]string
	}{
		{"opencode", "opencode acp --print-logs", map[string]string{"OPENCODE_X": "1"}},
		{"kilo", "kilo acp", nil},
		{"auggie", "", nil},                                // enabled = false
		{"qwen", "", nil},                                  // not installed
		{"copilot", "/opt/copilot/bin/copilot --acp", nil}, // user's program, entry's args
		{"claude", "", nil},                                // built-in name: its own adapter
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := r.Get(tt.name)
			ac, isACP := a.(*acpclient.Adapter)
			switch {
			case tt.argv == "" && err == nil && isACP:
				t.Fatalf("registered as a catalogued ACP agent: %v", ac.Argv())
			case tt.argv == "":
				return
			case !isACP:
				t.Fatalf("not registered as an ACP agent: %v", err)
			}
			if got := strings.Join(ac.Argv(), " "); got != tt.argv {
				t.Errorf("argv = %q, want %q", got, tt.argv)
			}
			for k, v := range tt.env {
				if ac.Env()[k] != v {
					t.Errorf("env %s = %q, want %q", k, ac.Env()[k], v)
				}
			}
		})
	}
}
