package acpclient

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/testlog"
)

// entries returns the log entries at level that name a record.

func TestSession_UnknownRecordsWarnOncePerTypeWithVersion(t *testing.T) {
	tests := []struct {
		name, agentVersion, tested string
		wantVersion, wantAbout     string
	}{
		{name: "agent newer than tested", agentVersion: "0.62.0", tested: "0.61.0", wantVersion: "0.62.0", wantAbout: "(fake 0.62.0, tested with 0.61.0)"},
		{name: "no agentInfo", agentVersion: "none", tested: "0.61.0", wantVersion: "unknown", wantAbout: "(fake unknown, tested with 0.61.0)"},
		{name: "config agent without tested versions", agentVersion: "1.2.3", wantVersion: "1.2.3", wantAbout: "(fake 1.2.3)"},
	}
	wantRaw := []string{"acp:_fake/ping", "acp:hologram_update", "acp:hologram_update", "acp:user_message_chunk", "acp:x/ask", "acp:x/telemetry"}
	wantWarned := []string{"acp:hologram_update", "acp:x/ask", "acp:x/telemetry"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs testlog.Buffer
			a := New(Config{
				Name: "fake", Argv: []string{os.Args[0]}, Env: map[string]string{fakeEnv: "1", fakeVersionEnv: tc.agentVersion},
				Caps: adapters.Capabilities{TestedVersions: tc.tested}, InitTimeout: 20 * time.Second, StopGrace: time.Second,
				Logger: zerolog.New(&logs).Level(zerolog.DebugLevel),
			})
			for session := 1; session <= 2; session++ {
				as, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				s := as.(*Session)
				for range 2 {
					evs := prompt(t, s, "unknown", nil)
					var raw []string
					for _, ev := range evs {
						if ev.Type == adapters.EventRaw {
							raw = append(raw, ev.Source)
						}
					}
					slices.Sort(raw)
					if !slices.Equal(raw, wantRaw) {
						t.Errorf("raw events = %q, want %q", raw, wantRaw)
					}
					if got := texts(evs); !strings.Contains(got, "-32601") {
						t.Errorf("unknown request answered %q, want method not found", got)
					}
				}
				_ = s.Close()
				warns := logs.Records("warn")
				if len(warns) != len(wantWarned)*session {
					t.Fatalf("after session %d: %d warnings, want %d (once per type per session): %+v", session, len(warns), len(wantWarned)*session, warns)
				}
				var warned []string
				for _, w := range warns[len(wantWarned)*(session-1):] {
					warned = append(warned, w["record"])
					if w["agent_version"] != tc.wantVersion || w["tested"] != tc.tested ||
						!strings.Contains(w["message"], w["record"]+", which hub does not understand "+tc.wantAbout) {
						t.Errorf("warning = %+v, want version %s and %q", w, tc.wantVersion, tc.wantAbout)
					}
				}
				slices.Sort(warned)
				if !slices.Equal(warned, wantWarned) {
					t.Errorf("warned about %q, want %q", warned, wantWarned)
				}
				if debug := logs.Records("debug"); !slices.ContainsFunc(debug, func(m map[string]string) bool { return m["record"] == "acp:_fake/ping" }) {
					t.Errorf("extension method not logged at debug: %+v", debug)
				}
			}
		})
	}
}

// Records hub does not understand are warned about also when they come
// outside a turn (here before session/new's answer), where they are dropped.
func TestSession_UnknownRecordsOutsideATurnWarn(t *testing.T) {
	var logs testlog.Buffer
	a := New(Config{
		Name: "fake", Argv: []string{os.Args[0]}, Env: map[string]string{fakeEnv: "1", fakeVersionEnv: "0.62.0"},
		InitTimeout: 20 * time.Second, StopGrace: time.Second, Logger: zerolog.New(&logs).Level(zerolog.DebugLevel),
	})
	dir := filepath.Join(t.TempDir(), "unknown-early")
	_ = os.Mkdir(dir, 0o755)
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var warned []string
	for _, w := range logs.Records("warn") {
		if w["agent_version"] != "0.62.0" {
			t.Errorf("warning %+v, want agent version 0.62.0", w)
		}
		warned = append(warned, w["record"])
	}
	slices.Sort(warned)
	if want := []string{"acp:hologram_update", "acp:x/telemetry"}; !slices.Equal(warned, want) {
		t.Errorf("warned about %q, want %q", warned, want)
	}
}
