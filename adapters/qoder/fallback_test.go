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
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestMain(m *testing.M) {
	proctest.Main(m, map[string]proctest.Helper{"ptyenv": func(args []string) int {
		_ = os.WriteFile(args[0], []byte(os.Getenv(noPTY)), 0o644)
		return 3 // no ACP
	}})
}

// A qodercli without ACP falls back to stream-json; the recorded partial
// stream must reach the user with each text once (deltas, not the repeat).
func TestAdapter_FallbackTextOnce(t *testing.T) {
	fix, err := filepath.Abs("testdata/streamjson-tool-partial/stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	argv := proctest.Command("exitifarg:--acp:3", "cat:"+fix) // no ACP: exit 3 when asked for it
	a := New(config.AgentConfig{Command: config.Command(append(argv, "--acp"))}, "test", false, zerolog.Nop())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := a.Start(ctx, adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("hi"))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var last adapters.Event
	for ev := range ch {
		if ev.Type == adapters.EventText {
			text.WriteString(ev.Text)
		}
		last = ev
	}
	if got, want := text.String(), "I'll run a command. Done: the tool said hello."; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if last.Type != adapters.EventDone || last.StopReason != adapters.StopEndTurn {
		t.Errorf("last event = %+v, want done/end_turn", last)
	}
}

// The stream-json fallback runs qodercli without the project's untrusted
// settings too, and its first turn says so, as an ACP session's does: it
// left them out without a word (fails on 2334cdb).
func TestAdapter_FallbackNamesSettingsLeftOut(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	fix, err := filepath.Abs("testdata/streamjson-tool-partial/stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	settings := filepath.Join(cwd, ".qoder", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"permissions":{"allow":["Bash"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := proctest.Command("exitifarg:--acp:3", "cat:"+fix)
	a := New(config.AgentConfig{Command: config.Command(append(argv, "--acp"))}, "test", false, zerolog.Nop())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := a.Start(ctx, adapters.SessionOptions{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for turn, want := range []bool{true, false} {
		ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("hi"))
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for ev := range ch {
			warned = warned || ev.Error != nil && ev.Error.Code == adapters.CodeWarning && strings.Contains(ev.Error.Message, settings)
		}
		if warned != want {
			t.Errorf("turn %d named %s: %v, want %v", turn+1, settings, warned, want)
		}
	}
}
