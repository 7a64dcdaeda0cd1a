package detect_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/detect"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// The registry (adapters/all) reads the initialize answers doctor cached:
// tested here, above both, so the agents need not import the doctor.
func TestRun_CatalogCapabilitiesReachTheRegistry(t *testing.T) {
	log := fakeInstall(t, "kilo")
	cfg := &config.Config{}
	if a, _ := all.Registry(cfg, zerolog.Nop()).Get("kilo"); a.Capabilities().Images {
		t.Fatal("images advertised before the agent said so")
	}
	rep, err := detect.Run(context.Background(), detect.Options{Config: cfg, Specs: all.DoctorSpecs(), Agents: []string{"kilo"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Agents[0].Capabilities; c == nil || !c.Images || !c.Resume {
		t.Fatalf("doctor capabilities = %+v, want the initialize answer's (image, loadSession); report %+v", c, rep.Agents[0])
	}
	a, _ := all.Registry(cfg, zerolog.Nop()).Get("kilo")
	if c := a.Capabilities(); !c.Images || !c.Resume {
		t.Fatalf("registry capabilities = %+v, want doctor's cached initialize answer", c)
	}
	starts := readLines(t, log)
	if _, err := detect.Run(context.Background(), detect.Options{Config: cfg, Specs: all.DoctorSpecs(), Agents: []string{"kilo"}, Refresh: true}); err != nil {
		t.Fatal(err)
	}
	if again := readLines(t, log); countACP(again) != countACP(starts) {
		t.Fatalf("a refreshed report asked initialize again for the same build: %v", again)
	}
}

// fakeInstall puts programs named bins on a fresh PATH, with a fresh
// home and cache, and returns the start log.
func fakeInstall(t *testing.T, bins ...string) string {
	t.Helper()
	dir, home := t.TempDir(), t.TempDir()
	log := filepath.Join(dir, "starts.log")
	for _, b := range bins {
		proctest.Install(t, dir, b, "helper:acp")
	}
	t.Setenv("PATH", dir)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("FAKE_LOG", log)
	return log
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
