package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// addUserConfig appends TOML to the isolated user config.
func addUserConfig(t *testing.T, root, toml string) {
	t.Helper()
	user := filepath.Join(root, "xdg_config_home", "hub", "config.toml")
	old, _ := os.ReadFile(user)
	if err := os.WriteFile(user, append(old, "\n"+toml...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The config's hooks reach the native loop through the registry: a
// PreToolUse hook blocks a write even under --approve all, and the model
// reads why; the refusal counts (exit 6), as a CLI agent's does (issue 35).
func TestRun_ConfigHookBlocksNativeWrite(t *testing.T) {
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"a.txt","content":"x"}`}}},
		mockllm.OpenAITurn{Text: "could not write"})
	defer srv.Close()
	root := isolate(t)
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n\n[[hooks.PreToolUse]]\ncommand = '%s'\nmatcher = \"write\"\n",
		srv.URL, proctest.ShellCommand("err:frozen branch\n", "exit:2")))
	cwd := t.TempDir()
	var out, errb bytes.Buffer
	code := realMain(context.Background(), []string{"run", "--agent", "mock", "--approve", "all", "--cwd", cwd, "write a.txt"}, strings.NewReader(""), &out, &errb)
	if code != 6 || out.String() != "could not write\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", code, out.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(cwd, "a.txt")); err == nil {
		t.Fatal("the blocked write happened")
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := mockllm.MessageText(last[len(last)-1]); !strings.Contains(got, "frozen branch") {
		t.Fatalf("the model read %q", got)
	}
}

// The config's hooks observe a CLI agent in hub run.
func TestRun_ConfigHookObservesCLIAgent(t *testing.T) {
	root := isolate(t)
	log := filepath.Join(root, "hook.log")
	addUserConfig(t, root, fmt.Sprintf("[[hooks.PostToolUse]]\ncommand = '%s'\n", proctest.ShellCommand("stdin>>:"+log)))
	script, err := filepath.Abs(filepath.Join("..", "..", "internal", "runner", "testdata", "replay", "tool.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HUB_REPLAY_SCRIPT", script)
	var out, errb bytes.Buffer
	code := realMain(context.Background(), []string{"run", "--agent", "replay", "--cwd", t.TempDir(), "go"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d stderr:\n%s", code, errb.String())
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var in hooks.Input
	if err := json.Unmarshal(b, &in); err != nil || in.Event != hooks.PostToolUse || in.Output != "ok  example 0.1s" {
		t.Fatalf("hook read %q (%v)", b, err)
	}
}

// A UserPromptSubmit hook that blocks keeps the prompt from the model;
// hub run fails with the hook's reason.
func TestRun_ConfigHookBlocksNativePrompt(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "never asked"})
	defer srv.Close()
	root := isolate(t)
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n\n[[hooks.UserPromptSubmit]]\ncommand = '%s'\n",
		srv.URL, proctest.ShellCommand("err:no prompts on Fridays\n", "exit:2")))
	var out, errb bytes.Buffer
	code := realMain(context.Background(), []string{"run", "--agent", "mock", "--cwd", t.TempDir(), "hello"}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "no prompts on Fridays") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d, %d requests, stderr:\n%s", code, len(srv.Requests()), errb.String())
	}
}
