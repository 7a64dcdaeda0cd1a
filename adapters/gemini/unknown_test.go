package gemini

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/testlog"
)

// warnings returns the warnings that name a record.

// awaitWarnings waits for n warnings: they are logged once the version
// lookup (a process) returns.

func TestStreamJSON_UnknownRecordsWarnOncePerTypeWithVersion(t *testing.T) {
	tests := []struct {
		name, version, wantVersion string
	}{
		{"gemini newer than tested", "0.62.0", "0.62.0"},
		{"no version printed", "", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			base, err := os.ReadFile(recorded(t, "streamjson-text"))
			if err != nil {
				t.Fatal(err)
			}
			stream := filepath.Join(dir, "stream.jsonl")
			extra := "Loaded cached credentials.\n" + `{"type":"hologram","n":1}` + "\n" + `{"type":"hologram","n":2}` + "\n" + `{"type":"telemetry"}` + "\n"
			writeFile(t, stream, extra+string(base))
			env := hermeticEnv(dir)
			env[fakeEnv], env[fakeStreamEnv], env[fakeVersionEnv] = "1", stream, tt.version
			var logs testlog.Buffer
			a := New(config.AgentConfig{Command: config.Command{os.Args[0], "--acp"}, Env: env}, "test", zerolog.New(&logs))
			wantRaw := []string{"gemini:hologram", "gemini:hologram", "gemini:invalid", "gemini:telemetry"}
			wantWarned := []string{"gemini:hologram", "gemini:telemetry"}
			for session := 1; session <= 2; session++ {
				s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				for range 2 {
					var evs []adapters.Event
					run(t, s, &evs)
					var raw []string
					var text string
					for _, ev := range evs {
						switch ev.Type {
						case adapters.EventRaw:
							raw = append(raw, ev.Source)
						case adapters.EventText:
							text += ev.Text
						}
					}
					slices.Sort(raw)
					if !slices.Equal(raw, wantRaw) || text == "" {
						t.Errorf("raw events %q (want %q), text %q", raw, wantRaw, text)
					}
				}
				_ = s.Close()
				warns := logs.AwaitRecords(t, "warn", len(wantWarned)*session)
				if len(warns) != len(wantWarned)*session {
					t.Fatalf("after session %d: %d warnings, want %d (once per type per session): %+v", session, len(warns), len(wantWarned)*session, warns)
				}
				var warned []string
				for _, w := range warns[len(wantWarned)*(session-1):] {
					warned = append(warned, w["record"])
					about := "(gemini " + tt.wantVersion + ", tested with " + TestedVersions + ")"
					if w["agent_version"] != tt.wantVersion || w["tested"] != TestedVersions || !strings.Contains(w["message"], w["record"]+", which hub does not understand "+about) {
						t.Errorf("warning %+v, want version %s and %q", w, tt.wantVersion, about)
					}
				}
				slices.Sort(warned)
				if !slices.Equal(warned, wantWarned) {
					t.Errorf("warned about %q, want %q", warned, wantWarned)
				}
			}
		})
	}
}

func TestPlainArgv_DropsACPFlags(t *testing.T) {
	tests := []struct{ argv, want []string }{
		{DefaultArgv, []string{"gemini"}},
		{[]string{"npx", "@google/gemini-cli", "--experimental-acp", "-m", "x"}, []string{"npx", "@google/gemini-cli", "-m", "x"}},
	}
	for _, tt := range tests {
		if got := plainArgv(tt.argv); !slices.Equal(got, tt.want) {
			t.Errorf("plainArgv(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
