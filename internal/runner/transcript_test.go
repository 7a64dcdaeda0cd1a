package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/transcript"
)

// hub run --resume ID with another agent briefs that agent on the run it
// continues, through its best channel; with the same agent it resumes.
func TestRun_ResumeWithAnotherAgentBriefsIt(t *testing.T) {
	dir := t.TempDir()
	edit := adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Title: "Edit parser.go", Kind: adapters.KindEdit,
		Locations: []adapters.Location{{Path: "/repo/parser.go"}}}}
	first := &fakeAdapter{name: "first", sessID: "sess-a", caps: adapters.Capabilities{Resume: true},
		script: steps(edit, text("Fixed the parser."), done(adapters.StopEndTurn))}
	if s, _, errOut := runFake(t, context.Background(), first, func(o *Options) {
		o.TranscriptDir, o.Prompt, o.Approve = dir, "the bug is in parser.go", conversation.ApproveAll
	}); s.ExitCode != conversation.ExitOK {
		t.Fatalf("first run: %d %s", s.ExitCode, errOut)
	}
	tests := []struct {
		name         string
		a            *fakeAdapter
		wantResume   string
		wantBriefing string // "instructions", "prompt" or "" (none)
	}{
		{"another agent with instructions", &fakeAdapter{name: "second", sessID: "sess-b", caps: adapters.Capabilities{Instructions: true}}, "", "instructions"},
		{"another agent without", &fakeAdapter{name: "third", sessID: "sess-c"}, "", "prompt"},
		{"the same agent resumes", &fakeAdapter{name: "first", sessID: "sess-a", caps: adapters.Capabilities{Resume: true}}, "sess-a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.a.script = steps(text("ok"), done(adapters.StopEndTurn))
			s, _, errOut := runFake(t, context.Background(), tt.a, func(o *Options) {
				o.TranscriptDir, o.ResumeID, o.Prompt = dir, "sess-a", "now add a test"
			})
			if s.ExitCode != conversation.ExitOK {
				t.Fatalf("exit %d: %s", s.ExitCode, errOut)
			}
			tt.a.mu.Lock()
			defer tt.a.mu.Unlock()
			prompt := adapters.PromptText(tt.a.prompt)
			briefed := map[string]string{"instructions": tt.a.opts.Instructions, "prompt": prompt}
			if tt.a.opts.ResumeID != tt.wantResume {
				t.Errorf("resume id %q, want %q", tt.a.opts.ResumeID, tt.wantResume)
			}
			for where, text := range briefed {
				has := strings.Contains(text, "the bug is in parser.go") && strings.Contains(text, "Fixed the parser.") && strings.Contains(text, "/repo/parser.go")
				if has != (where == tt.wantBriefing) {
					t.Errorf("briefing in %s = %v, want it only in %q:\n%s", where, has, tt.wantBriefing, text)
				}
			}
			if !strings.HasSuffix(prompt, "now add a test") {
				t.Errorf("prompt %q does not end with the user's words", prompt)
			}
		})
	}
	// The handed-over run's transcript holds both turns, for the next one.
	if tr := loadTranscript(dir, "sess-b"); tr == nil || len(tr.Brief.Turns) != 2 || tr.Agent != "second" {
		t.Fatalf("transcript of sess-b: %+v", tr)
	}
}

// A run recorded before the one record (runs/<id>.json) is still found
// by --continue, and still briefs an agent that takes it over.
func TestContinue_FindsAnOldRunRecord(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", "old", "runs", "sess-old.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The old code wrote the run's directory as canonicalDir made it
	// (a drive letter on Windows).
	cwd, _ := json.Marshal(canonicalDir("/src"))
	data = bytes.Replace(data, []byte(`"cwd":"/src"`), append([]byte(`"cwd":`), cwd...), 1)
	if err := os.WriteFile(filepath.Join(dir, "sess-old.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	o := Options{Agent: "claude", Cwd: "/src", Continue: true, TranscriptDir: dir}
	if err := o.resolveResume(); err != nil || o.ResumeID != "sess-old" {
		t.Fatalf("--continue resumes %q, %v", o.ResumeID, err)
	}
	if tr := loadTranscript(dir, "sess-old"); tr == nil || tr.Agent != "claude" || len(tr.Brief.Turns) != 1 || tr.Brief.Files[0] != "/src/parser.go" {
		t.Fatalf("old record read as %+v", tr)
	}
}

func TestTranscripts_OldestArePruned(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 5; i++ {
		tr := runRecord{Meta: transcript.Meta{Agent: "a", ID: fmt.Sprintf("s-%d", i)}}
		if err := tr.save(dir); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(time.Duration(i-10) * time.Hour) // s-0 oldest
		_ = os.Chtimes(filepath.Join(dir, tr.ID+".jsonl"), old, old)
	}
	transcript.Prune(dir, 3)
	for i, want := range []bool{false, false, true, true, true} {
		if got := loadTranscript(dir, fmt.Sprintf("s-%d", i)) != nil; got != want {
			t.Errorf("s-%d kept = %v, want %v", i, got, want)
		}
	}
}
