package acp

import (
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/transcript"
)

// A refusal the gate takes is said once in the conversation and recorded
// in the session's transcript with what decided it.
func TestSession_RefusalIsSaidOnceAndRecorded(t *testing.T) {
	dir := t.TempDir()
	c := newClient(t, scriptFile(t, shellStep("t1", "rm -rf ~", "ran", "not run")), func(o *Options) { o.TranscriptDir = dir })
	sid, _ := c.start(t)
	c.prompt(sid, "clean up")
	if text := c.agentText(sid); strings.Count(text, "hub refused") != 1 || !strings.Contains(text, "not run") {
		t.Fatalf("conversation %q, want one refusal said", text)
	}
	c.close()
	recs, err := transcript.Read(dir, sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if e := r.Event; e != nil && e.Decision != nil && !e.Decision.Allowed && e.Decision.By == permission.ByHardDeny {
			return
		}
	}
	t.Fatalf("the transcript does not record the refusal: %+v", recs)
}

// With transcripts on, each session's prompts and normalized events are
// written to a JSONL transcript named after the session, and a session
// loaded later appends to it.
func TestSession_AuditTranscript(t *testing.T) {
	dir := t.TempDir()
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"a"}}`, `{"event":{"type":"tool_call","tool":{"id":"t","title":"T","kind":"read","status":"completed"}}}`),
		func(o *Options) { o.TranscriptDir = dir })
	sid, cwd := c.start(t)
	c.prompt(sid, "question")
	c.close()
	c2 := startClient(t, Options{Registry: c.reg, StateDir: c.state, DefaultAgent: "replay", TranscriptDir: dir})
	c2.init(schema.ClientCapabilities{})
	c2.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
	c2.prompt(sid, "again")
	c2.close()

	recs, err := transcript.Read(dir, sid)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		switch {
		case r.Type == transcript.TypePrompt:
			got = append(got, "prompt "+r.Agent+" "+r.Prompt[0].Text)
		case r.Event != nil:
			got = append(got, "event "+string(r.Event.Type))
		default:
			got = append(got, r.Type)
		}
	}
	one := "prompt replay %s|event text|event tool_call|turn_end"
	want := "session|" + strings.Replace(one, "%s", "question", 1) + "|session|" + strings.Replace(one, "%s", "again", 1)
	if strings.Join(got, "|") != want {
		t.Fatalf("records:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}
