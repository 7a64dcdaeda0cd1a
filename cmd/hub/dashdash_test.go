package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/conversation"
)

// After "--" no word is a flag, hub's global ones included, for every
// subcommand: a prompt or argument that looks like a flag stays an
// argument.
func TestRealMain_DoubleDashEndsEveryFlag(t *testing.T) {
	root := isolate(t)
	chdir(t, root)
	names := append(slices.Sorted(func(yield func(string) bool) {
		for n := range commands {
			if !yield(n) {
				return
			}
		}
	}), "version")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "log")
			hub(t, nil, name, "--", "--log-file="+logFile, "--log-level", "trace", "--config="+filepath.Join(root, "missing.toml"), "--trust-project")
			if _, err := os.Stat(logFile); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("hub %s -- --log-file=FILE: the global flag was taken (%v)", name, err)
			}
			hub(t, nil, name, "--", "--log-file", logFile)
			if _, err := os.Stat(logFile); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("hub %s -- --log-file FILE: the global flag was taken (%v)", name, err)
			}
			code, _, errOut := hub(t, nil, name, "--", "--help")
			if help := commands[name].help; help != "" && strings.Contains(errOut, help) || code == exitOK && name != "version" && name != "trust" {
				t.Errorf("hub %s -- --help: exit %d, stderr %q: --help was taken as a flag", name, code, errOut)
			}
		})
	}
}

// The words before "--" keep the "flags after the prompt" rule.
func TestRealMain_GlobalFlagsBeforeDoubleDash(t *testing.T) {
	root := isolate(t)
	chdir(t, root)
	logFile := filepath.Join(root, "log")
	hub(t, nil, "agents", "--log-file", logFile)
	if _, err := os.Stat(logFile); err != nil {
		t.Errorf("--log-file after the subcommand was not taken: %v", err)
	}
	var g globalFlags
	rest := extractGlobal(&g, []string{"run", "fix", "--trust-project", "it", "--config", "--", "--log-file=x"})
	if !g.trustProject || g.config != "" || g.logFile != "" || !slices.Equal(rest, []string{"run", "fix", "it", "--config", "--", "--log-file=x"}) {
		t.Errorf("extractGlobal = %q, %+v", rest, g)
	}
}

// The reviewer's reproduction: a prompt word "--trust-project" after "--"
// does not trust the repository, so its agent does not run.
func TestRun_PromptWordsAfterDoubleDashTrustNothing(t *testing.T) {
	root := isolate(t)
	repo := filepath.Join(root, "repo")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, ".hub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A missing program: trusted, hub tries to start it (exit 3).
	evil := fmt.Sprintf("[agents.evil]\ncommand = [%q]\n", filepath.Join(root, "no-such-evil-agent"))
	if err := os.WriteFile(filepath.Join(repo, ".hub", "config.toml"), []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	chdir(t, repo)
	title := strings.Fields("--trust-project fix the bug")
	code, _, errOut := hub(t, nil, append([]string{"run", "--agent", "evil", "--"}, title...)...)
	if code != exitUsage {
		t.Fatalf("exit %d, stderr %q: want 2, the untrusted agent refused", code, errOut)
	}
	// The control: hub tries the agent when the flag comes before "--".
	if code, _, errOut := hub(t, nil, "run", "--agent", "evil", "--trust-project", "--", "fix", "the", "bug"); code != conversation.ExitNotInstalled {
		t.Fatalf("with --trust-project before --: exit %d, stderr %q; want %d, the agent tried", code, errOut, conversation.ExitNotInstalled)
	}
}
