package pi

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// With the project's extensions left out (--no-extensions), hub names the
// user's own again with -e: only those pi itself would load. An extension
// the user turned off in pi's settings ("-extensions/x.ts", "!pattern"),
// and what pi's discovery skips (a dot entry, node_modules, a folder of no
// index), ran or failed to load as an extension under hub, and the paths
// the settings name (from pi's folder, or ~) were left out (fails on
// 2334cdb).
func TestTrustArgs_UserExtensionsAsPiLoadsThem(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // os.UserHomeDir on Windows
	agentDir, cwd := t.TempDir(), t.TempDir()
	own := filepath.Join(agentDir, "extensions")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(cwd, ".pi", "extensions", "repo.ts"), "")
	for _, f := range []string{"on.ts", "off.ts", "globbed-off.js", "forced.ts", "dir/index.ts", "lib/helper.ts", ".hidden.ts", "node_modules/dep/index.js"} {
		write(filepath.Join(own, f), "")
	}
	write(filepath.Join(agentDir, "mine", "a,b.ts"), "")
	write(filepath.Join(home, "home.ts"), "")
	write(filepath.Join(agentDir, "settings.json"), `{"extensions": ["-extensions/off.ts", "!globbed-*", "!forced.ts", "+extensions/forced.ts", "mine/a,b.ts", "~/home.ts", "gone.ts"]}`)
	a := NewWithOptions(Options{Env: map[string]string{agentDirEnv: agentDir}})
	args, notice, err := a.trustArgs(adapters.SessionOptions{Cwd: cwd})
	if err != nil || notice == "" {
		t.Fatalf("trustArgs: %v, notice %q", err, notice)
	}
	want := []string{"--no-extensions"}
	for _, f := range []string{"dir", "forced.ts", "on.ts"} {
		want = append(want, "-e", filepath.Join(own, f))
	}
	want = append(want, "-e", filepath.Join(agentDir, "mine", "a,b.ts"), "-e", filepath.Join(home, "home.ts")) // the settings' own paths
	if !slices.Equal(args, want) {
		t.Errorf("args = %q\nwant %q", args, want)
	}
}
