package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse_Hooks(t *testing.T) {
	c, err := Parse("h.toml", []byte(`
[[hooks.PreToolUse]]
command = "./guard.sh"
matcher = "bash|write"
timeout = "10s"

[[hooks.PreToolUse]]
command = "audit"

[[hooks.Stop]]
command = "notify-send done"
`))
	if err != nil {
		t.Fatal(err)
	}
	pre := c.Hooks["PreToolUse"]
	if len(pre) != 2 || pre[0].Command != "./guard.sh" || pre[0].Matcher != "bash|write" || pre[0].Timeout.Duration != 10*time.Second ||
		pre[1].Timeout.Set || len(c.Hooks["Stop"]) != 1 || len(c.Warnings) != 0 {
		t.Fatalf("hooks %+v warnings %v", c.Hooks, c.Warnings)
	}
}

func TestParse_HookErrors(t *testing.T) {
	cases := []struct{ name, toml, key string }{
		{"unknown event", "[[hooks.PreTool]]\ncommand = \"x\"\n", "hooks.PreTool"},
		{"no command", "[[hooks.Stop]]\nmatcher = \"x\"\n", "hooks.Stop[0].command"},
		{"bad matcher", "[[hooks.PreToolUse]]\ncommand = \"x\"\nmatcher = \"(\"\n", "hooks.PreToolUse[0].matcher"},
		{"bad timeout", "[[hooks.PreToolUse]]\ncommand = \"x\"\ntimeout = \"soon\"\n", "timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("h.toml", []byte(c.toml))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.key) {
				t.Fatalf("err %v, want ErrInvalid naming %s", err, c.key)
			}
		})
	}
}

func TestParse_HookMatcherOnPromptEventWarns(t *testing.T) {
	c, err := Parse("h.toml", []byte("[[hooks.UserPromptSubmit]]\ncommand = \"x\"\nmatcher = \"bash\"\n"))
	if err != nil || len(c.Warnings) != 1 {
		t.Fatalf("err %v warnings %v", err, c.Warnings)
	}
}

// Hooks run commands: an untrusted project file's are dropped, the user's
// kept; once trusted, the project's run after the user's.
func TestLoad_UntrustedProjectHooksDropped(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "cfg"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	user := filepath.Join(root, "cfg", "hub", "config.toml")
	repo := filepath.Join(root, "repo")
	for _, d := range []string{filepath.Dir(user), filepath.Join(repo, ".git"), filepath.Join(repo, ".hub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(user, "[[hooks.PreToolUse]]\ncommand = \"mine\"\n")
	write(filepath.Join(repo, ".hub", "config.toml"), "[[hooks.PreToolUse]]\ncommand = \"theirs\"\n[[hooks.SessionStart]]\ncommand = \"evil\"\n")
	c, err := Load(repo, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Hooks["PreToolUse"]; len(got) != 1 || got[0].Command != "mine" || len(c.Hooks["SessionStart"]) != 0 {
		t.Fatalf("hooks %+v: want the user's only", c.Hooks)
	}
	var ignored []string
	for _, ig := range c.Ignored {
		ignored = append(ignored, ig.Key)
	}
	if strings.Join(ignored, ",") != "hooks.PreToolUse[0],hooks.SessionStart[0]" {
		t.Fatalf("ignored %v", ignored)
	}
	if _, err := Trust(repo); err != nil {
		t.Fatal(err)
	}
	c, _ = Load(repo, "")
	if got := c.Hooks["PreToolUse"]; len(got) != 2 || got[1].Command != "theirs" || len(c.Hooks["SessionStart"]) != 1 {
		t.Fatalf("trusted hooks %+v", c.Hooks)
	}
}
