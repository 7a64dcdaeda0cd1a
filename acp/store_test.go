package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/transcript"
)

// History is session id's history as Get reads it, for the tests.
func (x *Store) History(id string) []schema.SessionUpdate {
	rec, _ := x.Get(id)
	return rec.History
}

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
	recs, err := transcript.Read(IndexDir(state), sid)
	if err != nil {
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

// A session hub acp writes is one file, a transcript: its metadata rides
// in its session records (the last wins), and it round-trips session/list,
// session/load, the store's reads and the export.
func TestStore_SessionIsOneFileThatRoundTrips(t *testing.T) {
	state := t.TempDir()
	c := newClient(t, "", func(o *Options) { o.StateDir = state })
	sid, cwd := c.start(t)
	c.prompt(sid, "first turn")
	c.must("session/set_mode", map[string]any{"sessionId": sid, "modeId": "plan"}, nil)
	c.prompt(sid, "second turn")
	c.drain()
	c.close()
	files := sessionFiles(filepath.Join(state, "sessions"))
	if len(files) != 1 || filepath.Base(files[0]) != sid+".jsonl" {
		t.Fatalf("session files %v: want one, %s.jsonl", files, sid)
	}
	recs, err := transcript.Read(IndexDir(state), sid)
	if err != nil || len(recs) < 3 || recs[0].Session == nil || recs[len(recs)-1].Session == nil {
		t.Fatalf("records %+v, %v: want a session record first and last", recs, err)
	}
	st := OpenStore(state)
	rec, ok := st.Get(sid)
	if !ok || rec.Mode != "plan" || rec.Cwd != cwd || rec.Agent != "replay" {
		t.Fatalf("Get %+v %v", rec, ok)
	}
	list, err := st.List(cwd, "")
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid || list.Sessions[0].UpdatedAt != rec.UpdatedAt.UTC().Format(time.RFC3339) {
		t.Fatalf("list %+v, %v", list, err)
	}
	if md := transcript.Markdown(recs); !strings.Contains(md, "## User\n\nfirst turn") || !strings.Contains(md, "## User\n\nsecond turn") {
		t.Fatalf("markdown:\n%s", md)
	}
	c = newClient(t, "", func(o *Options) { o.StateDir = state })
	c.init(schema.ClientCapabilities{})
	c.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
	var said []string
	for _, u := range c.updates(sid) {
		if u.UserMessageChunk != nil {
			said = append(said, u.UserMessageChunk.Content.Text)
		}
	}
	if !reflect.DeepEqual(said, []string{"first turn", "second turn"}) {
		t.Fatalf("session/load replayed the prompts %q", said)
	}
}

// Every format an older hub wrote lists and loads, with all its metadata,
// and becomes the one file the first time it is read. The fixtures are
// the files hub wrote: bare update lines beside a .json (before the one
// record), update records beside it (a18ab1a), the two mixed (a18ab1a
// appending to the older), and the history inside the .json (the oldest;
// an update kind this version cannot read loses only itself).
func TestStore_OldFormatsListAndLoad(t *testing.T) {
	tests := []struct {
		name, id, title string
		said            []string
		updates         int
	}{
		{"bare lines", "hub_0ld5e55i0n0000000000000000", "Fix the parser", []string{"the bug is in parser.go"}, 6},
		{"a18ab1a", "hub_a18ab1a0f0rmat0000000000", "Tidy the lexer, twice", []string{"tidy lexer.go", "again"}, 4},
		{"mixed", "hub_m1xed0000000000000000000", "Fix the parser", []string{"the bug is in parser.go"}, 7},
		{"oldest", "hub_0ldest00000000000000000000", "Port the CLI", []string{"port the cli"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := t.TempDir()
			dir := IndexDir(state)
			old, _ := filepath.Glob(filepath.Join("..", "internal", "transcript", "testdata", "old", "sessions", tt.id+".*"))
			for _, f := range old {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var want Record
			meta, err := os.ReadFile(filepath.Join(dir, tt.id+".json"))
			if err != nil || json.Unmarshal(meta, &want) != nil {
				t.Fatalf("fixture: %v", err)
			}
			st := OpenStore(state)
			all := st.Sessions()
			if len(all) != 1 || !reflect.DeepEqual(*all[0], want) || all[0].Title != tt.title {
				t.Fatalf("sessions %+v, want %+v", all, want)
			}
			if files := sessionFiles(dir); len(files) != 1 || filepath.Base(files[0]) != tt.id+".jsonl" {
				t.Fatalf("files after the first read %v: want one, %s.jsonl", files, tt.id)
			}
			got, ok := st.Get(tt.id)
			if n := len(got.History); !ok || n != tt.updates {
				t.Fatalf("Get: %v, %d updates, want %d", ok, n, tt.updates)
			}
			if got.History = nil; !reflect.DeepEqual(*got, want) {
				t.Fatalf("Get %+v, want %+v", got, want)
			}
			c := newClient(t, "", func(o *Options) { o.StateDir = state })
			c.init(schema.ClientCapabilities{})
			c.must("session/load", schema.LoadSessionRequest{SessionID: tt.id, Cwd: t.TempDir(), McpServers: []schema.McpServer{}}, nil)
			var said []string
			for _, u := range c.updates(tt.id) {
				if u.UserMessageChunk != nil {
					said = append(said, u.UserMessageChunk.Content.Text)
				}
			}
			c.close()
			if !reflect.DeepEqual(said, tt.said) {
				t.Fatalf("session/load replayed the prompts %q, want %q", said, tt.said)
			}
			recs, err := transcript.Read(dir, tt.id)
			if md := transcript.Markdown(recs); err != nil || !strings.Contains(md, "# "+tt.title) || !strings.Contains(md, "## User\n\n"+tt.said[0]) {
				t.Fatalf("markdown, %v:\n%s", err, md)
			}
		})
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
	recs, err := transcript.Read(IndexDir(state), id)
	if md := transcript.Markdown(recs); err != nil || !strings.Contains(md, "# Fix the parser") || !strings.Contains(md, "## replay\n\nFixed the parser.") {
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

// An older hub (a18ab1a) that had a session open goes on saving it after
// this one migrated it: it appends its turn's update records to the
// transcript and writes its metadata to <id>.json again. The next read
// here keeps both, its metadata as the latest (its agent session is the
// one to resume); an old record a crash left behind changes nothing.
func TestStore_OlderHubSavingAMigratedSessionKeepsItsMetadata(t *testing.T) {
	state := t.TempDir()
	dir := IndexDir(state)
	chunk := func(text string) []schema.SessionUpdate {
		return []schema.SessionUpdate{{AgentMessageChunk: &schema.ContentChunk{Content: schema.TextBlock(text)}}}
	}
	then := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	rec := &Record{SessionID: "s1", Agent: "replay", AgentSessionID: "agent-1", Cwd: "/w", Title: "new", UpdatedAt: then}
	if err := OpenStore(state).Save(rec, chunk("a"), true); err != nil {
		t.Fatal(err)
	}
	older := *rec
	older.Title, older.AgentSessionID, older.UpdatedAt = "renamed by the older hub", "agent-2", then.Add(time.Minute)
	recs, _ := updateRecords("s1", chunk("b"))
	meta, _ := json.Marshal(older)
	if err := transcript.Append(dir, "s1", recs); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second time, as a crash before its removal left it
		if err := os.WriteFile(filepath.Join(dir, "s1.json"), meta, 0o600); err != nil {
			t.Fatal(err)
		}
		st := OpenStore(state)
		all := st.Sessions()
		got, ok := st.Get("s1")
		if len(all) != 1 || all[0].Title != older.Title || !ok || got.AgentSessionID != "agent-2" || !got.UpdatedAt.Equal(older.UpdatedAt) || len(got.History) != 2 {
			t.Fatalf("sessions %+v, Get %+v %v: want the older hub's metadata and both turns", all, got, ok)
		}
		if n := strings.Count(mustRead(t, filepath.Join(dir, "s1.jsonl")), `"type":"session"`); n != 3 {
			t.Fatalf("%d session records, want 3 (the first save's two, the older hub's one)", n)
		}
	}
}

// On a disk that ignores case (macOS's, Windows') an id that differs from
// a session's only in case names that session's file: session/delete of
// it must leave that session alone. Here the file's name and its
// session's id differ that way on any disk.
func TestStore_DeleteSparesAnotherSessionsFile(t *testing.T) {
	state := t.TempDir()
	dir := IndexDir(state)
	if err := OpenStore(state).Save(&Record{SessionID: "hub_ABC", Agent: "replay"}, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "hub_ABC.jsonl"), filepath.Join(dir, "hub_abc.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := OpenStore(state).Delete("hub_abc"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hub_abc.jsonl")); err != nil {
		t.Fatalf("deleting hub_abc removed hub_ABC's file: %v", err)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A crash in the middle of a save's write loses at most the record it
// tore: wherever the file ends, the session lists with the metadata of the
// last whole session record, its history holds every whole update, and
// the next save appends after the last whole record.
func TestStore_CrashMidWriteLosesAtMostTheLastRecord(t *testing.T) {
	state := t.TempDir()
	x := OpenStore(state)
	rec := &Record{SessionID: "s1", Agent: "replay", Cwd: "/w", Title: "one"}
	chunk := func(text string) schema.SessionUpdate {
		return schema.SessionUpdate{AgentMessageChunk: &schema.ContentChunk{Content: schema.TextBlock(text)}}
	}
	if err := x.Save(rec, []schema.SessionUpdate{chunk("a")}, true); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(IndexDir(state), "s1.jsonl")
	first, _ := os.ReadFile(file)
	rec.Title = "two"
	if err := x.Save(rec, []schema.SessionUpdate{chunk("b"), chunk("c")}, true); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(file)
	for cut := len(first) + 1; cut < len(whole); cut++ {
		if err := os.WriteFile(file, whole[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		kept := strings.Count(string(whole[:cut]), "\n") // whole lines; the torn one may parse
		recs, err := transcript.Read(IndexDir(state), "s1")
		if err != nil || len(recs) < kept || len(recs) > kept+1 {
			t.Fatalf("cut at %d: %d records, %v; want %d whole ones", cut, len(recs), err, kept)
		}
		updates := func(recs []transcript.Record) (n int) {
			for _, r := range recs {
				if r.Type == transcript.TypeUpdate {
					n++
				}
			}
			return n
		}
		title := map[bool]string{true: "two", false: "one"}[len(recs) == 6]
		y := OpenStore(state)
		got, ok := y.Get("s1")
		if hist := y.History("s1"); !ok || got.Title != title || len(hist) != updates(recs) {
			t.Fatalf("cut at %d: Get %+v %v, %d updates, want title %s and %d", cut, got, ok, len(hist), title, updates(recs))
		}
		rec.Title = "three"
		if err := y.Save(rec, []schema.SessionUpdate{chunk("d")}, true); err != nil {
			t.Fatal(err)
		}
		if got, _ := OpenStore(state).Get("s1"); got.Title != "three" || len(y.History("s1")) != updates(recs[:kept])+1 {
			t.Fatalf("cut at %d: after the next save %+v, %d updates", cut, got, len(y.History("s1")))
		}
	}
}

// A line corrupted in the middle of a session's file costs that line
// only: Get and the history read every record after it, the later
// session records included, and listing shows the latest metadata.
func TestStore_CorruptLineMidFileCostsOnlyItself(t *testing.T) {
	state := t.TempDir()
	x := OpenStore(state)
	rec := &Record{SessionID: "s1", Agent: "replay", Cwd: "/w", Title: "one"}
	chunk := func(text string) schema.SessionUpdate {
		return schema.SessionUpdate{AgentMessageChunk: &schema.ContentChunk{Content: schema.TextBlock(text), MessageID: text}}
	}
	for i, text := range []string{"a", "b", "c"} {
		rec.Title = []string{"one", "two", "three"}[i]
		if err := x.Save(rec, []schema.SessionUpdate{chunk(text)}, true); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(IndexDir(state), "s1.jsonl")
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(whole), "\n")
	for i, l := range lines { // the update "a", the file's second line
		if strings.Contains(l, `"text":"a"`) {
			lines[i] = "{corrupt\n"
		}
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	y := OpenStore(state)
	got, ok := y.Get("s1")
	var texts []string
	for _, u := range y.History("s1") {
		texts = append(texts, u.AgentMessageChunk.Content.Text)
	}
	if !ok || got.Title != "three" || strings.Join(texts, "") != "bc" {
		t.Fatalf("Get %+v %v, history %q: want title three and b, c", got, ok, texts)
	}
	if list := y.Sessions(); len(list) != 1 || list[0].Title != "three" {
		t.Fatalf("listed %+v", list)
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
	files, _ := filepath.Glob(filepath.Join(state, "sessions", "*"))
	for _, p := range files {
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

// sessionFiles are the files of the index dir but its lock file, which
// stays (an OS lock: removing the file would let two holders lock two).
func sessionFiles(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	return slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".lock") })
}
