//go:build unix

package codex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/testlog"
)

// warnings returns the warn-level entries that name an unknown record.

func rawSources(evs []adapters.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type == adapters.EventRaw {
			out = append(out, e.Source)
		}
	}
	return out
}

func TestUserAgentVersion_Parses(t *testing.T) {
	tests := []struct{ ua, want string }{
		{"codex_cli_rs/0.169.0 (Debian 12.0.0; x86_64) xterm (hub; 0)", "0.169.0"},
		{"hub/0.170.2 (Mac OS 15; arm64)", "0.170.2"},
		{"fake", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := userAgentVersion(tc.ua); got != tc.want {
			t.Errorf("userAgentVersion(%q) = %q, want %q", tc.ua, got, tc.want)
		}
	}
}

func TestAppServer_UnknownRecordWarnsOncePerTypePerSession(t *testing.T) {
	inject := strings.Join([]string{
		`{"method":"thread/futureThing","params":{"n":1}}`,
		`{"method":"thread/futureThing","params":{"n":2}}`,
		`{"method":"item/hologram/delta","params":{}}`,
	}, "\n")
	tests := []struct {
		name, ua, wantVersion, wantMsg string
	}{
		{name: "version from userAgent", ua: "codex_cli_rs/0.170.2 (Debian 12; x86_64) xterm", wantVersion: "0.170.2",
			wantMsg: "(codex 0.170.2, tested with " + TestedVersions + ")"},
		{name: "userAgent without version", ua: "fake", wantVersion: "unknown",
			wantMsg: "(codex unknown, tested with " + TestedVersions + ")"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, "appserver-text", "CODEX_FAKE_UA="+tc.ua, "CODEX_FAKE_INJECT="+inject)
			var logs testlog.Buffer
			f.a.log = zerolog.New(&logs)
			for session := 1; session <= 2; session++ {
				s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				evs := drain(t, mustPrompt(t, s, "hi"), nil)
				_ = s.Close()
				if got := strings.Join(rawSources(evs), " "); got != "codex:thread/futureThing codex:thread/futureThing codex:item/hologram/delta" {
					t.Errorf("session %d raw events = %q, want every unknown record passed on", session, got)
				}
				warns := logs.Records("warn")
				if len(warns) != 2*session {
					t.Fatalf("after session %d: %d warnings, want one per record type per session: %+v", session, len(warns), warns)
				}
				for _, w := range warns[2*(session-1):] {
					if w["agent_version"] != tc.wantVersion || w["tested"] != TestedVersions || !strings.Contains(w["message"], tc.wantMsg) ||
						!strings.Contains(w["message"], w["record"]) {
						t.Errorf("warning = %+v, want version %s and %q", w, tc.wantVersion, tc.wantMsg)
					}
				}
				if warns[2*session-2]["record"] != "codex:thread/futureThing" || warns[2*session-1]["record"] != "codex:item/hologram/delta" {
					t.Errorf("warned records = %+v", warns)
				}
			}
			if got := f.a.cliVersion(); tc.wantVersion != "unknown" && got != tc.wantVersion {
				t.Errorf("adapter version = %q, want %q remembered for exec", got, tc.wantVersion)
			}
		})
	}
}

func TestExecFallback_UnknownRecordWarnsWithKnownOrUnknownVersion(t *testing.T) {
	recorded, err := os.ReadFile(filepath.Join("testdata", "exec-tool", "stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(recorded), "\n", 2)
	unknown := `{"type":"thread.hologram","n":1}` + "\n"
	stream := filepath.Join(t.TempDir(), "stream.jsonl")
	if err := os.WriteFile(stream, []byte(lines[0]+"\n"+unknown+unknown+lines[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, known, wantMsg string
	}{
		{name: "no app-server session yet", wantMsg: "(codex unknown, tested with " + TestedVersions + ")"},
		{name: "version known from app-server", known: "0.170.2", wantMsg: "(codex 0.170.2, tested with " + TestedVersions + ")"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newExecFake(t, "exec-tool", "")
			f.a.cfg.Env["CODEX_FAKE_STREAM"] = stream
			var logs testlog.Buffer
			f.a.log = zerolog.New(&logs)
			f.a.setCLIVersion(tc.known)
			s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			evs := drain(t, mustPrompt(t, s, "run it"), nil)
			if got := rawSources(evs); len(got) != 2 || got[0] != "codexexec:thread.hologram" {
				t.Errorf("raw events = %q, want both unknown records", got)
			}
			warns := logs.Records("warn")
			if len(warns) != 1 || warns[0]["record"] != "codexexec:thread.hologram" || !strings.Contains(warns[0]["message"], tc.wantMsg) {
				t.Errorf("warnings = %+v, want one naming the record and %q", warns, tc.wantMsg)
			}
		})
	}
}
