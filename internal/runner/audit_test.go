package runner

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	transcripts "github.com/hubdev/hub/internal/transcript"
)

func recordTypes(recs []transcripts.Record) string {
	var out []string
	for _, r := range recs {
		t := r.Type
		if r.Event != nil {
			t += ":" + string(r.Event.Type)
		}
		out = append(out, t)
	}
	return strings.Join(out, " ")
}

// With transcripts on, a run's Event stream is written under the agent's
// session id, and a resumed run appends to the same file.
func TestRun_AuditTranscript(t *testing.T) {
	dir := t.TempDir()
	script := func() fakeScript {
		return steps(adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: "sess-1"}}, text("ok"), done(adapters.StopEndTurn))
	}
	for _, resume := range []string{"", "sess-1"} {
		a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Resume: true}, script: script()}
		if s, _, errOut := runFake(t, context.Background(), a, func(o *Options) { o.AuditDir, o.ResumeID = dir, resume }); s.ExitCode != conversation.ExitOK {
			t.Fatalf("exit %d: %s", s.ExitCode, errOut)
		}
	}
	recs, err := transcripts.Read(dir, "sess-1")
	if err != nil {
		t.Fatal(err)
	}
	one := "session prompt event:session_info event:text turn_end"
	if got := recordTypes(recs); got != one+" "+one {
		t.Fatalf("records: %s", got)
	}
	if recs[1].Agent != "fake" || recs[1].Prompt[0].Text != "hi" || recs[0].Session.Agent != "fake" {
		t.Fatalf("prompt record %+v, session %+v", recs[1], recs[0].Session)
	}
}

func TestRun_AuditTranscriptNaming(t *testing.T) {
	tests := []struct {
		name  string
		caps  adapters.Capabilities
		files int
		want  string
	}{
		{"no session id: named after the run", adapters.Capabilities{}, 1, "run-"},
		{"agent keeps its own transcript", adapters.Capabilities{Transcript: true}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			a := &fakeAdapter{name: "fake", caps: tt.caps, script: steps(text("ok"), done(adapters.StopEndTurn))}
			runFake(t, context.Background(), a, func(o *Options) { o.AuditDir = dir })
			entries, _ := os.ReadDir(dir)
			if len(entries) != tt.files || (tt.files > 0 && !strings.HasPrefix(entries[0].Name(), tt.want)) {
				t.Fatalf("files %v", entries)
			}
		})
	}
}
