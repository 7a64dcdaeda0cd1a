package qoder

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc/proctest"
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

// qodercli runs without its PTY tools, whatever the user's, the config's
// or the session's environment says: hub cannot tell where a shell that
// BashInput types into is, nor what was typed into it before.
func TestAdapter_NoPTYTools(t *testing.T) {
	tests := []struct {
		name            string
		process         string
		config, session map[string]string
	}{
		{"nothing set", "", nil, nil},
		{"user's environment", "1", nil, nil},
		{"config env", "", map[string]string{noPTY: "1"}, nil},
		{"session env", "", nil, map[string]string{noPTY: "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(noPTY, tt.process)
			file := filepath.Join(t.TempDir(), "env")
			argv := proctest.HelperCommand("ptyenv", file)
			a := New(config.AgentConfig{Command: config.Command(argv), Env: tt.config}, "test", false, zerolog.Nop())
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if s, err := a.Start(ctx, adapters.SessionOptions{Cwd: t.TempDir(), Env: tt.session}); err == nil {
				s.Close()
			}
			if b, err := os.ReadFile(file); err != nil || string(b) != "0" {
				t.Errorf("qodercli saw %s=%q (%v), want 0", noPTY, b, err)
			}
		})
	}
}
