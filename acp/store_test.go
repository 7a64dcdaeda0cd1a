package acp

import (
	"os"
	"path/filepath"
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

// A session written before the one record (bare update lines) still
// loads: session/load replays its history, and it exports alike.
func TestStore_LoadsOldHistoryFiles(t *testing.T) {
	state := t.TempDir()
	const id = "hub_0ld5e55i0n0000000000000000"
	old := filepath.Join("..", "internal", "transcript", "testdata", "old", "sessions")
	for _, name := range []string{id + ".json", id + ".jsonl"} {
		data, err := os.ReadFile(filepath.Join(old, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(state, "sessions"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(state, "sessions", name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := OpenStore(state)
	hist := st.History(id)
	if len(hist) != 6 || hist[0].UserMessageChunk == nil || hist[3].ToolCallUpdate == nil || hist[5].Compaction == nil {
		t.Fatalf("history %+v", hist)
	}
	c := newClient(t, "", func(o *Options) { o.StateDir = state })
	c.init(schema.ClientCapabilities{})
	c.must("session/load", schema.LoadSessionRequest{SessionID: id, Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, nil)
	if ups := c.updates(id); len(ups) < 5 || ups[0].UserMessageChunk == nil || ups[0].UserMessageChunk.Content.Text != "the bug is in parser.go" {
		t.Fatalf("session/load replayed %+v", ups)
	}
	c.close()
	recs, ok := st.Records(id)
	if md := transcript.Markdown(recs); !ok || !strings.Contains(md, "# Fix the parser") || !strings.Contains(md, "## replay\n\nFixed the parser.") {
		t.Fatalf("markdown:\n%s", md)
	}
	// A new turn appends in the one format after the old lines.
	x := OpenStore(state)
	rec, _ := x.Get(id)
	if err := x.Save(rec, []schema.SessionUpdate{{AgentMessageChunk: &schema.ContentChunk{Content: schema.TextBlock("again")}}}, true); err != nil {
		t.Fatal(err)
	}
	if hist := st.History(id); len(hist) != 7 || hist[6].AgentMessageChunk.Content.Text != "again" {
		t.Fatalf("history after a new turn %+v", hist)
	}
}

// The oldest index kept the history in the metadata file, with no .jsonl:
// reading it must leave that file alone (it is not a run to migrate).
func TestStore_OldestFormatKeepsItsMetadataFile(t *testing.T) {
	state := t.TempDir()
	meta := filepath.Join(state, "sessions", "hub_1.json")
	// An update kind this version does not know loses only itself.
	old := `{"sessionId":"hub_1","agent":"replay","cwd":"/src","updatedAt":"2026-01-02T03:04:05Z",` +
		`"history":[{"sessionUpdate":"some_future_kind","x":1},{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"kept"}}]}`
	if err := os.MkdirAll(filepath.Dir(meta), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(meta, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	st := OpenStore(state)
	if hist := st.History("hub_1"); len(hist) != 1 || hist[0].AgentMessageChunk.Content.Text != "kept" {
		t.Fatalf("history %+v", hist)
	}
	if b, err := os.ReadFile(meta); err != nil || string(b) != old {
		t.Fatalf("the metadata file changed: %v %s", err, b)
	}
	if _, ok := st.Get("hub_1"); !ok {
		t.Fatal("the session is gone")
	}
	if list := st.Sessions(); len(list) != 1 || list[0].SessionID != "hub_1" {
		t.Fatalf("sessions %+v", list)
	}
}

func TestStore_SessionFilesMaskSecrets(t *testing.T) {
	state := t.TempDir()
	const token = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	x := OpenStore(state)
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
