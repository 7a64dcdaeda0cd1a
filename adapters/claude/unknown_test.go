package claude

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/testlog"
)

func TestSession_UnknownRecordWarnsOncePerTypePerSession(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var logs testlog.Buffer
	a := New(config.AgentConfig{Command: config.Command{exe}, Env: map[string]string{"HUB_FAKE_CLAUDE": "unknown"}},
		zerolog.New(&logs).Level(zerolog.DebugLevel))
	for session := 1; session <= 2; session++ {
		s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("hi"))
			if err != nil {
				t.Fatal(err)
			}
			evs := collect(t, ch, nil)
			if n := strings.Count(eventTypes(evs), "raw"); n < 2 {
				t.Errorf("raw events in %q, want the unknown records passed on", eventTypes(evs))
			}
		}
		_ = s.Close()
		warns := logs.Records("warn")
		if len(warns) != session {
			t.Fatalf("after session %d: %d warnings, want one per unknown type per session: %v", session, len(warns), warns)
		}
		w := warns[session-1]
		if w["record"] != "claude:brand_new_thing" || w["agent_version"] != "2.1.330" || w["tested"] != TestedVersions ||
			!strings.Contains(w["message"], "(claude 2.1.330, tested with "+TestedVersions+")") {
			t.Errorf("warning = %v", w)
		}
	}
	for _, d := range logs.Records("debug") {
		if d["record"] == "claude:rate_limit_event" {
			return
		}
	}
	t.Errorf("the allowed rate_limit_event is not logged at debug")
}
