package all

import (
	"context"
	"regexp"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/adapters/codex"
	"github.com/hubdev/hub/adapters/gemini"
	"github.com/hubdev/hub/adapters/pi"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestMain(m *testing.M) { proctest.Main(m, nil) }

// TestAgents_ExitReadsOneWay: an agent whose process exits (code 3, a
// stderr line) is told in one wording whatever the agent: its name once,
// how it exited, its last stderr line once; at start (before it answered)
// or in a turn.
func TestAgents_ExitReadsOneWay(t *testing.T) {
	fake := proctest.Command("err:boom: bad config\n", "exit:3")
	ac := config.AgentConfig{Command: config.Command(fake)}
	tests := []struct {
		name string // how the message names it
		a    adapters.Adapter
	}{
		{"claude", claude.New(ac, zerolog.Nop())},
		{"codex", codex.New(ac, zerolog.Nop())}, // app-server falls back to exec, whose turn ends with the exit
		{"pi", pi.New(ac, zerolog.Nop())},
		{"gemini", gemini.New(ac, "", zerolog.Nop())}, // the stream-json fallback
		{"demo", acpclient.New(acpclient.Config{Name: "demo", Argv: fake})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shape := regexp.MustCompile(`^` + tt.name + ` exited (unexpectedly|before answering [a-z_/]+) \(exit code 3\): boom: bad config$`)
			if got := exitMessage(t, tt.a); !shape.MatchString(got) {
				t.Fatalf("exit told as %q, want %s", got, shape)
			}
		})
	}
}

// exitMessage is what a's start, or else its first turn, says went wrong.
func exitMessage(t *testing.T, a adapters.Adapter) string {
	t.Helper()
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		return err.Error()
	}
	defer func() { _ = s.Close() }()
	msg := ""
	_, err = s.Prompt(context.Background(), adapters.TextPrompt("go"), func(ev adapters.Event) {
		if ev.Type == adapters.EventError && msg == "" {
			msg = ev.Error.Message
		}
	})
	if msg == "" && err != nil {
		msg = err.Error()
	}
	return msg
}
