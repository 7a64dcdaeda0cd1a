package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
)

func fixedNow() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }

func write(t *testing.T, dir, id string, recs ...Record) {
	t.Helper()
	w, err := Open(dir, Meta{ID: id, Agent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		w.Write(r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func appendRaw(t *testing.T, dir, id, raw string) {
	t.Helper()
	p, _ := Path(dir, id)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(raw); err != nil {
		t.Fatal(err)
	}
}

func types(recs []Record) string {
	s := ""
	for _, r := range recs {
		s += r.Type + " "
	}
	return s
}

func TestRead_Records(t *testing.T) {
	tests := []struct {
		name    string
		raw     string // appended after one event record
		want    string
		wantErr bool
	}{
		{"whole", "", "session event ", false},
		{"torn last line", `{"v":1,"type":"turn_e`, "session event ", false},
		{"torn line then blank", "{\"v\":1,\n\n", "session event ", false},
		{"later version skipped", `{"v":2,"type":"new"}` + "\n", "session event ", false},
		{"corrupt middle line", "{oops\n" + `{"v":1,"type":"turn_end"}` + "\n", "session event turn_end ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "s1", Record{Type: TypeEvent, Event: &adapters.Event{Type: adapters.EventText, Text: "hi"}})
			appendRaw(t, dir, "s1", tt.raw)
			recs, err := Read(dir, "s1")
			if (err != nil) != tt.wantErr || types(recs) != tt.want {
				t.Fatalf("Read = %q, %v", types(recs), err)
			}
			if !tt.wantErr && recs[1].Event.Text != "hi" {
				t.Fatalf("event = %+v", recs[1].Event)
			}
		})
	}
}

func TestOpen_CutsATornLastLine(t *testing.T) {
	for _, torn := range []string{`{"v":1,"type":"mess`, strings.Repeat("x", 20<<10)} {
		dir := t.TempDir()
		write(t, dir, "s1")
		appendRaw(t, dir, "s1", torn)
		write(t, dir, "s1", Record{Type: TypeTurnEnd, Stop: "end_turn"})
		recs, err := Read(dir, "s1")
		if err != nil || types(recs) != "session session turn_end " {
			t.Fatalf("after reopening a torn file: %q, %v", types(recs), err)
		}
	}
}

func TestListAndRemove(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "old")
	write(t, dir, "new")
	past := fixedNow().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "old.jsonl"), past, past)
	os.WriteFile(filepath.Join(dir, "junk.jsonl"), []byte("not json\n"), 0o600)
	list, err := List(dir)
	if err != nil || len(list) != 2 || list[0].ID != "new" || list[1].ID != "old" || list[0].Agent != "test" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if err := Remove(dir, "old"); err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir, "old"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Remove = %v", err)
	}
	if _, err := Read(dir, "old"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read removed = %v", err)
	}
	if empty, err := List(filepath.Join(dir, "none")); err != nil || len(empty) != 0 {
		t.Fatalf("List of a missing dir = %v, %v", empty, err)
	}
}

// Latest reads a transcript's last whole session record from its end; the
// heading of its export is the last one's, started when the first was.
func TestLatest_LastSessionRecordWins(t *testing.T) {
	dir := t.TempDir()
	then := fixedNow().Add(-time.Hour)
	up := Record{Type: TypeUpdate, Update: []byte(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`)}
	if err := Append(dir, "s1", []Record{{Type: TypeSession, Time: then, Session: &Meta{ID: "s1", Agent: "a", Title: "first"}}, up}); err != nil {
		t.Fatal(err)
	}
	if m, err := Latest(dir, "s1"); err != nil || m.Title != "first" {
		t.Fatalf("Latest = %+v, %v", m, err)
	}
	if err := Append(dir, "s1", []Record{up, {Type: TypeSession, Session: &Meta{ID: "s1", Agent: "b", Title: "second"}}}); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, dir, "s1", `{"v":1,"type":"session","session":{"id":"s1","title":"tor`)
	if m, err := Latest(dir, "s1"); err != nil || m.Title != "second" || m.Agent != "b" {
		t.Fatalf("Latest = %+v, %v", m, err)
	}
	recs, _ := Read(dir, "s1")
	if md := Markdown(recs); !strings.HasPrefix(md, "# second\n\nAgent: b · cwd:  · started "+then.Format("2006-01-02 15:04")) || !strings.Contains(md, "## a\n\nhi") {
		t.Fatalf("markdown:\n%s", md)
	}
	if _, err := Latest(dir, "none"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Latest of nothing = %v", err)
	}
}

// Latest finds the last whole session record however its file ends, and
// reads no further than latestMax from the end: a session/list never
// reads gigabytes of a file that has no session record near its end.
func TestLatest_ReadsTheEndOnly(t *testing.T) {
	head := func(title string) string {
		return `{"v":1,"type":"session","session":{"id":"s","agent":"a","title":"` + title + `"}}`
	}
	up := `{"v":1,"type":"update","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}` + "\n"
	long := strings.Repeat("x", 100<<10) // longer than any one read
	tests := []struct {
		name, data string
		gap        int64 // zeros (a sparse stretch, no newline) after data
		want       string
	}{
		{"last line longer than a read", head("first") + "\n" + up + head(long) + "\n", 0, long},
		{"no newline at the end", head("first") + "\n" + up + head("last"), 0, "last"},
		{"only a newline", "\n", 0, ""},
		{"empty", "", 0, ""},
		{"torn last record after a turn", head("first") + "\n" + up + up + `{"v":1,"type":"session","session":{"id":"s","ti`, 0, "first"},
		{"torn record longer than a read", head("first") + "\n" + up + `{"v":1,"type":"session","session":{"id":"s","title":"` + long, 0, "first"},
		{"the record beyond the bound", head("far") + "\n", latestMax, ""},
		{"the record just within it", head("near") + "\n", latestMax - 1<<10, "near"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "s.jsonl")
			if err := os.WriteFile(p, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, int64(len(tt.data))+tt.gap); err != nil {
				t.Fatal(err)
			}
			m, err := Latest(dir, "s")
			if tt.want == "" && !errors.Is(err, ErrNotFound) || tt.want != "" && (err != nil || m.Title != tt.want) {
				t.Fatalf("Latest = %.40q, %v; want %.40q", m.Title, err, tt.want)
			}
		})
	}
}

// An audited event and hub acp's update made from it export alike: a
// plan too (an audited plan was left out).
func TestMarkdown_EventsReadAsTheirUpdates(t *testing.T) {
	plan := []adapters.PlanEntry{{Content: "fix the parser", Status: "in_progress"}}
	tool := &adapters.ToolCall{ID: "t1", Title: "Edit parser.go", Status: adapters.StatusPending}
	events := []Record{{Type: TypeEvent, Event: &adapters.Event{Type: adapters.EventText, Text: "On it."}},
		{Type: TypeEvent, Event: &adapters.Event{Type: adapters.EventPlan, Plan: plan}},
		{Type: TypeEvent, Event: &adapters.Event{Type: adapters.EventToolCall, Tool: tool}},
		{Type: TypeEvent, Event: &adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: "t1", Status: adapters.StatusCompleted}}}}
	var updates []Record
	for _, u := range []string{`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"On it."}}`,
		`{"sessionUpdate":"plan","entries":[{"content":"fix the parser","priority":"medium","status":"in_progress"}]}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Edit parser.go","status":"pending"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}`} {
		updates = append(updates, Record{Type: TypeUpdate, Update: []byte(u)})
	}
	want := "## agent\n\nOn it.\n\nPlan:\n- [in_progress] fix the parser\n\n- tool: Edit parser.go (completed)\n"
	for name, recs := range map[string][]Record{"events": events, "updates": updates} {
		if got := Markdown(recs); got != want {
			t.Errorf("%s export as\n%q, want\n%q", name, got, want)
		}
	}
}

// An old update whose content block has a member of another shape than
// ACP's still exports its text: only that member is left out.
func TestMarkdown_OddMemberKeepsTheText(t *testing.T) {
	tests := []struct{ update, want string }{
		{`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Fixed it.","size":"12"}}`, "## agent\n\nFixed it.\n"},
		{`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"fix it","resource":"file:///a"}}`, "## User\n\nfix it\n"},
	}
	for _, tt := range tests {
		if got := Markdown([]Record{{Type: TypeUpdate, Update: []byte(tt.update)}}); got != tt.want {
			t.Errorf("%s exports as %q, want %q", tt.update, got, tt.want)
		}
	}
}

func TestPath_RefusesUnsafeIDs(t *testing.T) {
	for _, id := range []string{"", "../x", "a/b", "a..b", `c:\x`} {
		if _, err := Path("/d", id); err == nil {
			t.Errorf("Path(%q) accepted", id)
		}
	}
}

func TestWrite_SecretsMasked(t *testing.T) {
	dir := t.TempDir()
	const token = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	const pat = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
	write(t, dir, "s1",
		Record{Type: TypePrompt, Prompt: []adapters.Content{{Type: adapters.ContentText, Text: "use " + token}}},
		Record{Type: TypeEvent, Event: &adapters.Event{Type: adapters.EventText, Text: "quoted \"" + pat + "\""}})
	p, _ := Path(dir, "s1")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), token) || strings.Contains(string(raw), pat) || !strings.Contains(string(raw), "sk-ant-[masked]") {
		t.Fatalf("transcript keeps the secret:\n%s", raw)
	}
	recs, err := Read(dir, "s1")
	if err != nil || len(recs) != 3 {
		t.Fatalf("masked transcript does not read back: %v %d", err, len(recs))
	}
	if md := Markdown(recs); !strings.Contains(md, "use sk-ant-[masked]") || !strings.Contains(md, `quoted "github_pat_[masked]"`) {
		t.Fatalf("export:\n%s", md)
	}
}
