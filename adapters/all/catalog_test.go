//go:build unix

package all

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/detect"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
)

// fakeInstall puts programs named bins on a fresh PATH, with a fresh
// home and cache, and returns the start log.
func fakeInstall(t *testing.T, bins ...string) string {
	t.Helper()
	dir, home := t.TempDir(), t.TempDir()
	log := filepath.Join(dir, "starts.log")
	for _, b := range bins {
		if err := os.WriteFile(filepath.Join(dir, b), []byte(fixture.ACPScript), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("FAKE_LOG", log)
	return log
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

func TestRegistry_CatalogCapabilitiesAreTheAgentsInitializeAnswer(t *testing.T) {
	log := fakeInstall(t, "kilo")
	cfg := &config.Config{}
	if a, _ := Registry(cfg, zerolog.Nop()).Get("kilo"); a.Capabilities().Images {
		t.Fatal("images advertised before the agent said so")
	}
	rep, err := detect.Run(context.Background(), detect.Options{Config: cfg, Specs: DoctorSpecs(), Agents: []string{"kilo"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Agents[0].Capabilities; c == nil || !c.Images || !c.Resume {
		t.Fatalf("doctor capabilities = %+v, want the initialize answer's (image, loadSession); report %+v", c, rep.Agents[0])
	}
	a, _ := Registry(cfg, zerolog.Nop()).Get("kilo")
	if c := a.Capabilities(); !c.Images || !c.Resume {
		t.Fatalf("registry capabilities = %+v, want doctor's cached initialize answer", c)
	}
	starts := readLines(t, log)
	if _, err := detect.Run(context.Background(), detect.Options{Config: cfg, Specs: DoctorSpecs(), Agents: []string{"kilo"}, Refresh: true}); err != nil {
		t.Fatal(err)
	}
	if again := readLines(t, log); countACP(again) != countACP(starts) {
		t.Fatalf("a refreshed report asked initialize again for the same build: %v", again)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, _ := os.ReadFile(path)
	return strings.Fields(strings.ReplaceAll(string(data), " ", "_"))
}

func countACP(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.HasSuffix(l, "_acp") {
			n++
		}
	}
	return n
}

var _ adapters.Adapter = (*acpclient.Adapter)(nil)
