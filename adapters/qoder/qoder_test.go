package qoder

import (
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

func TestFallbackArgv_Flags(t *testing.T) {
	got := strings.Join(FallbackArgv(DefaultArgv, "hi", "s1", adapters.SessionOptions{Cwd: "/w", Mode: "yolo"}), " ")
	want := "qodercli --output-format stream-json --include-partial-messages -w /w --permission-mode bypass_permissions --resume s1 -p hi"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A prompt that looks like an option (a delegating agent writes it) stays
// the prompt: qodercli 1.1.52 read `-p "--mcp-config={…}"` as that option
// (starting the servers it names), and refuses `-p -- --version` as an
// unknown option, so -- is no way out. Other prompts are passed as they are.
func TestFallbackArgv_PromptIsNeverAnOption(t *testing.T) {
	for _, p := range []string{"--dangerously-skip-permissions", `--mcp-config={"mcpServers":{}}`, "--settings=x.json", "-c", "- fix the list"} {
		args := FallbackArgv(DefaultArgv, p, "", adapters.SessionOptions{})
		if last := args[len(args)-1]; args[len(args)-2] != "-p" || strings.HasPrefix(last, "-") || strings.TrimSpace(last) != p {
			t.Errorf("prompt %q: argv ends %q", p, args[len(args)-2:])
		}
	}
	for _, p := range []string{"fix it", "a --flag in the middle"} {
		if args := FallbackArgv(DefaultArgv, p, "", adapters.SessionOptions{}); args[len(args)-1] != p {
			t.Errorf("prompt %q became %q", p, args[len(args)-1])
		}
	}
}
