package qoder

import (
	"context"
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

func TestMain(m *testing.M) { proctest.Main(m, nil) }

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
