package gemini

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

func TestFallbackArgv_Flags(t *testing.T) {
	tests := []struct {
		name   string
		argv   []string
		resume string
		opts   adapters.SessionOptions
		want   string
	}{
		{"default", DefaultArgv, "", adapters.SessionOptions{}, "gemini -o stream-json -p hi"},
		{"the user's --skip-trust kept", []string{"gemini", "--acp", "--skip-trust"}, "", adapters.SessionOptions{}, "gemini --skip-trust -o stream-json -p hi"},
		{"resume model mode", []string{"/opt/gemini", "--acp", "--debug"}, "s1", adapters.SessionOptions{Model: "m", Mode: "autoEdit"},
			"/opt/gemini --debug -o stream-json -m m --approval-mode auto_edit --resume s1 -p hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(FallbackArgv(tt.argv, "hi", tt.resume, tt.opts), " "); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A prompt that looks like an option (a delegating agent writes it) stays
// the prompt: gemini's parser read `-p --yolo` as an empty prompt and
// --yolo (measured with gemini 0.61: `gemini -p --version` prints the
// version). Other prompts are passed as they are.
func TestFallbackArgv_PromptIsNeverAnOption(t *testing.T) {
	for _, p := range []string{"--yolo", "-y", "--approval-mode=yolo", "--extensions=evil", "- fix the list", "-"} {
		args := FallbackArgv(DefaultArgv, p, "", adapters.SessionOptions{})
		if last := args[len(args)-1]; args[len(args)-2] != "-p" || strings.HasPrefix(last, "-") || strings.TrimSpace(last) != p {
			t.Errorf("prompt %q: argv ends %q", p, args[len(args)-2:])
		}
	}
	for _, p := range []string{"fix it", " indented", "a -- b"} {
		if args := FallbackArgv(DefaultArgv, p, "", adapters.SessionOptions{}); args[len(args)-1] != p {
			t.Errorf("prompt %q became %q", p, args[len(args)-1])
		}
	}
}

// The stream-json fallback runs with the model and mode of the agent's
// config, as an ACP session does, unless the session names its own: it
// ran gemini's default mode, so a `mode = "yolo"` run could not edit and
// said nothing.
func TestFallback_TakesTheConfiguredModelAndMode(t *testing.T) {
	tests := []struct {
		name string
		opts adapters.SessionOptions
		want string
	}{
		{"the config's", adapters.SessionOptions{}, "-m cfg-model --approval-mode yolo"},
		{"the session's first", adapters.SessionOptions{Model: "m2", Mode: "autoEdit"}, "-m m2 --approval-mode auto_edit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := hermeticEnv(dir)
			args := filepath.Join(dir, "args")
			env[fakeEnv], env[fakeStreamEnv], env[fakeArgsFile] = "1", recorded(t, "streamjson-text"), args
			a := New(config.AgentConfig{Command: config.Command{os.Args[0], "--acp"}, Env: env, Model: "cfg-model", Mode: "yolo"}, "test", zerolog.Nop())
			tt.opts.Cwd = dir
			s, err := a.Start(context.Background(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var evs []adapters.Event
			run(t, s, &evs)
			got, err := os.ReadFile(args)
			if err != nil || !strings.Contains(string(got), tt.want) {
				t.Fatalf("fallback args %q (%v), want %q in them", got, err, tt.want)
			}
		})
	}
}

func TestNew_ConfigOverrides(t *testing.T) {
	a := New(config.AgentConfig{}, "", zerolog.Nop())
	if a.Name() != "gemini" || a.Capabilities().TestedVersions != TestedVersions || !a.Capabilities().Permissions {
		t.Fatalf("caps = %+v", a.Capabilities())
	}
}
