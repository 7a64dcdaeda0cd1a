package all

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/internal/config"
)

// The scripted test agent is never listed by default; a config entry of
// type "replay" registers it under the entry's name.
func TestRegistry_ReplayOnlyWhenConfigured(t *testing.T) {
	empty, err := config.Parse("test.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range Registry(empty, zerolog.Nop()).Names() {
		if n == "replay" {
			t.Fatal("replay listed without configuration")
		}
	}
	cfg, err := config.Parse("test.toml", []byte("[agents.demo]\ntype = \"replay\"\nscript = \"/tmp/demo.jsonl\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) > 0 {
		t.Fatalf("warnings for a replay entry: %v", cfg.Warnings)
	}
	a, err := Registry(cfg, zerolog.Nop()).Get("demo")
	if err != nil || a.Name() != "demo" {
		t.Fatalf("demo = %v, %v", a, err)
	}
}
