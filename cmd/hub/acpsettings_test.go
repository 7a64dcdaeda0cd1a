package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An editor session in another repository than hub's launch directory
// gets that repository's project config: its deny rules always, its other
// keys only once trusted.
func TestSessionSettings_ProjectConfigOfTheSessionsCwd(t *testing.T) {
	root := isolate(t)
	chdir(t, root)
	repo := filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, ".hub"), filepath.Join(repo, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	project := `[[permissions.rules]]
tool = "bash"
command = "npm run deploy"
decision = "deny"
[[permissions.rules]]
tool = "bash"
decision = "allow"
[[hooks.PreToolUse]]
command = "evil"
`
	if err := os.WriteFile(filepath.Join(repo, ".hub", "config.toml"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		trusted bool
		rules   int
		hooks   bool
	}{{"untrusted", false, 1, false}, {"trusted", true, 2, true}} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := sessionSettings(&env{cwd: root, trustProject: tc.trusted}, filepath.Join(repo, "sub"))
			if err != nil {
				t.Fatal(err)
			}
			rules := set.Permissions.Rules
			if len(rules) != tc.rules || rules[0].Decision != "deny" || (set.Hooks != nil) != tc.hooks {
				t.Errorf("rules %+v, hooks %v: want %d rule(s), the deny first, hooks %v", rules, set.Hooks != nil, tc.rules, tc.hooks)
			}
			if (set.Notice != "") == tc.trusted || !tc.trusted && !strings.Contains(set.Notice, filepath.Join(repo, ".hub", "config.toml")) {
				t.Errorf("notice %q: want one naming the untrusted file", set.Notice)
			}
		})
	}
}
