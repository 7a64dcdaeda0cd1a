package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// hub run observes a CLI agent's Event stream: every event's hooks run,
// PostToolUse with the tool's output, before the run ends; a failed hook
// is a warning of the summary.
func TestRun_HooksObserveCLIAgent(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	logHook := config.HookConfig{Command: proctest.ShellCommand("stdin>>:" + log)}
	cfg := map[string][]config.HookConfig{"PreToolUse": {{Command: proctest.ShellCommand("exit:5"), Matcher: "bash"}}}
	for _, ev := range config.HookEvents {
		cfg[ev] = append(cfg[ev], logHook)
	}
	h, err := hooks.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg := adapters.NewRegistry()
	reg.Register(replay.New(filepath.Join("testdata", "replay", "tool.jsonl")))
	var out, errb bytes.Buffer
	cwd := t.TempDir()
	s := Run(context.Background(), Options{Registry: reg, Agent: replay.Name, Cwd: cwd, Prompt: "test it", Format: FormatText,
		Stdout: &out, Stderr: &errb, Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir(), Hooks: h})
	if s.ExitCode != conversation.ExitOK || out.String() != "Tests pass.\n" {
		t.Fatalf("exit %d (%s), stdout %q", s.ExitCode, s.Error, out.String())
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "hooks.PreToolUse[0]") {
		t.Fatalf("warnings %v", s.Warnings)
	}
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []string
	var post hooks.Input
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var in hooks.Input
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatal(err)
		}
		events = append(events, string(in.Event))
		if in.Event == hooks.PostToolUse {
			post = in
		}
	}
	if strings.Join(events, ",") != "SessionStart,UserPromptSubmit,PostToolUse,Stop" {
		t.Fatalf("events %v (PreToolUse stops at its failing first hook)", events)
	}
	if post.Tool != "Bash" || post.Output != "ok  example 0.1s" || post.Status != "completed" || post.Session != "r-7" ||
		post.Cwd != cwd || post.Agent != replay.Name || !strings.Contains(string(post.Input), "go test") {
		t.Fatalf("PostToolUse input %+v", post)
	}
}

// A UserPromptSubmit hook that blocks keeps the prompt from a CLI agent:
// the run fails with the hook's reason and the agent answers nothing.
func TestRun_UserPromptSubmitBlocksCLIPrompt(t *testing.T) {
	h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("err:no secrets in prompts\n", "exit:2")}}})
	if err != nil {
		t.Fatal(err)
	}
	reg := adapters.NewRegistry()
	reg.Register(replay.New(filepath.Join("testdata", "replay", "tool.jsonl")))
	var out, errb bytes.Buffer
	s := Run(context.Background(), Options{Registry: reg, Agent: replay.Name, Cwd: t.TempDir(), Prompt: "my key is sk-1", Format: FormatText,
		Stdout: &out, Stderr: &errb, Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir(), Hooks: h})
	if s.ExitCode != conversation.ExitAgentError || !strings.Contains(s.Error, "no secrets in prompts") || out.Len() != 0 {
		t.Fatalf("exit %d error %q stdout %q", s.ExitCode, s.Error, out.String())
	}
}
