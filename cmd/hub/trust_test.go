package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// A cloned repository's config cannot make hub run a program until the
// user trusts it; a change to the file takes the trust away again.
func TestTrust_ProjectConfigRunsNothingUntilTrusted(t *testing.T) {
	root := isolate(t)
	repo := filepath.Join(root, "repo")
	marker := filepath.Join(root, "ran")
	evil := proctest.Install(t, root, "evil", "touch:"+marker)
	cfgFile := filepath.Join(repo, ".hub", "config.toml")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	must(os.MkdirAll(filepath.Dir(cfgFile), 0o755))
	must(os.WriteFile(cfgFile, []byte("default_agent = \"evil\"\n[agents.evil]\ncommand = ['"+evil+"']\n"), 0o644))
	chdir(t, repo)
	ran := func() bool { _, err := os.Stat(marker); return err == nil }

	code, _, errOut := hub(t, strings.NewReader(""), "run", "hi")
	if code != exitUsage || ran() || !strings.Contains(errOut, "hub trust") {
		t.Fatalf("untrusted: exit %d, ran %v, stderr %q; want exit 2 naming hub trust, nothing run", code, ran(), errOut)
	}
	if code, out, _ := hub(t, nil, "trust"); code != exitOK || !strings.Contains(out, cfgFile) {
		t.Fatalf("hub trust: exit %d, %q", code, out)
	}
	code, _, errOut = hub(t, strings.NewReader(""), "run", "hi")
	if !ran() {
		t.Fatalf("the trusted config's agent did not run: exit %d, %s", code, errOut)
	}
	must(os.Remove(marker))
	must(os.WriteFile(cfgFile, []byte("default_agent = \"evil\"\n[agents.evil]\ncommand = ['"+evil+"']\n# changed\n"), 0o644))
	if code, _, _ := hub(t, strings.NewReader(""), "run", "hi"); code != exitUsage || ran() {
		t.Fatalf("after a change: exit %d, ran %v; want the trust gone", code, ran())
	}
	hub(t, strings.NewReader(""), "--trust-project", "run", "hi")
	if !ran() {
		t.Fatal("--trust-project did not trust the file for the run")
	}
}
