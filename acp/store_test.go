package acp

import (
	"os"
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/transcript"
)

func TestStore_ListsShowsAndRemovesRecordedSessions(t *testing.T) {
	state := t.TempDir()
	c := newClient(t, "", func(o *Options) { o.StateDir = state })
	sid, _ := c.start(t)
	c.prompt(sid, "hello store")
	c.drain()
	st := OpenStore(state)
	all := st.Sessions()
	if len(all) != 1 || all[0].SessionID != sid {
		t.Fatalf("sessions %+v", all)
	}
	recs, ok := st.Records(sid)
	if !ok {
		t.Fatal("recorded session not found")
	}
	md := transcript.Markdown(recs)
	if !strings.Contains(md, "## User\n\nhello store") || !strings.Contains(md, "## replay\n\n") || !strings.Contains(md, "Agent: replay") {
		t.Fatalf("markdown:\n%s", md)
	}
	if err := st.Delete(sid); err != nil {
		t.Fatal(err)
	}
	if n := len(OpenStore(state).Sessions()); n != 0 {
		t.Fatalf("%d sessions after rm", n)
	}
}

func TestStore_SessionFilesMaskSecrets(t *testing.T) {
	state := t.TempDir()
	const token = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	x := newIndex(state)
	rec := &Record{SessionID: "s1", Agent: "replay", Title: "use " + token}
	more := []schema.SessionUpdate{{AgentMessageChunk: &schema.ContentChunk{Content: schema.TextBlock(`the "key" ` + token)}}}
	if err := x.Save(rec, more, true); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{x.path("s1"), x.historyPath("s1")} {
		raw, err := os.ReadFile(p)
		if err != nil || strings.Contains(string(raw), token) {
			t.Fatalf("%s: %v, keeps the token:\n%s", p, err, raw)
		}
	}
	st := OpenStore(state)
	got, ok := st.Get("s1")
	hist := st.History("s1")
	if !ok || got.Title != "use ghp_[masked]" || len(hist) != 1 || hist[0].AgentMessageChunk.Content.Text != `the "key" ghp_[masked]` {
		t.Fatalf("read back %+v %+v", got, hist)
	}
}
