package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// copyOld copies testdata/old/<sub> into a fresh dir (reading may migrate).
func copyOld(t *testing.T, sub string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(filepath.Join("testdata", "old", sub))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata", "old", sub, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// hub acp's history files of before the one record held bare updates
// beside a metadata file: read, they become one transcript, the metadata
// a session record (first and last), each line an update record, and it
// exports like a new one.
func TestRead_OldACPHistory(t *testing.T) {
	dir := copyOld(t, "sessions")
	recs, err := Read(dir, "hub_0ld5e55i0n0000000000000000")
	if err != nil || len(recs) != 8 {
		t.Fatalf("read %d records, %v", len(recs), err)
	}
	for _, r := range []Record{recs[0], recs[7]} {
		if s := r.Session; s == nil || s.Title != "Fix the parser" || s.Agent != "replay" || !strings.Contains(string(s.State), `"agentSessionId":"agent-old-1"`) {
			t.Fatalf("record %+v is not the session's", r)
		}
	}
	for _, r := range recs[1:7] {
		if r.Type != TypeUpdate || len(r.Update) == 0 {
			t.Fatalf("record %+v is not an update", r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "hub_0ld5e55i0n0000000000000000.json")); !os.IsNotExist(err) {
		t.Fatalf("the old metadata file is still there: %v", err)
	}
	md := Markdown(recs)
	for _, want := range []string{"# Fix the parser", "## User\n\nthe bug is in parser.go", "## replay\n\n", "- tool: Edit parser.go (completed)", "Fixed the parser."} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "thinking about it") {
		t.Errorf("markdown shows a thought:\n%s", md)
	}
}

// hub run's old record (<id>.json) becomes a transcript the first time it
// is read or listed: same brief, same time, the old file gone.
func TestRead_OldRunRecordMigrates(t *testing.T) {
	for _, first := range []string{"read", "list"} {
		t.Run(first, func(t *testing.T) {
			dir := copyOld(t, "runs")
			old := filepath.Join(dir, "sess-old.json")
			then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			if err := os.Chtimes(old, then, then); err != nil {
				t.Fatal(err)
			}
			if first == "list" {
				list, err := List(dir)
				if err != nil || len(list) != 1 || list[0].ID != "sess-old" || list[0].Agent != "claude" || list[0].Cwd != "/src" || !list[0].Updated.Equal(then) {
					t.Fatalf("list %+v, %v", list, err)
				}
			}
			recs, err := Read(dir, "sess-old")
			if err != nil || len(recs) != 2 || recs[1].Brief == nil || len(recs[1].Brief.Turns) != 1 || recs[1].Brief.Files[0] != "/src/parser.go" {
				t.Fatalf("read %+v, %v", recs, err)
			}
			if _, err := os.Stat(old); !os.IsNotExist(err) {
				t.Fatalf("the old record is still there: %v", err)
			}
			md := Markdown(recs)
			for _, want := range []string{"# sess-old", "Agent: claude · cwd: /src", "## User\n\nthe bug is in parser.go", "## claude\n\nFixed the parser.", "- tool: Edit parser.go"} {
				if !strings.Contains(md, want) {
					t.Errorf("markdown lacks %q:\n%s", want, md)
				}
			}
		})
	}
}

// Two processes meet one old session at once (a session/list in each, or
// a list and a session/load), and the first saves a turn as soon as it
// migrated it: the other's migration, read before that save, never
// replaces the file under it (migrations take a lock, and the second
// finds the work done). Goroutines stand for the processes: nothing in
// this package locks within one.
func TestMigrate_ConcurrentMigrationKeepsASavedTurn(t *testing.T) {
	const id = "hub_a18ab1a0f0rmat0000000000"
	turn := Record{Type: TypeUpdate, Update: []byte(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"the turn"}}`)}
	for trial := range 100 {
		dir := copyOld(t, "sessions")
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			<-start
			if _, err := Latest(dir, id); err != nil {
				t.Errorf("trial %d: %v", trial, err)
			}
			if err := Append(dir, id, []Record{turn}); err != nil {
				t.Errorf("trial %d: %v", trial, err)
			}
		})
		wg.Go(func() {
			<-start
			_, _ = Latest(dir, id)
		})
		close(start)
		wg.Wait()
		recs, err := Read(dir, id)
		if err != nil || !slices.ContainsFunc(recs, func(r Record) bool { return strings.Contains(string(r.Update), "the turn") }) {
			t.Fatalf("trial %d: the saved turn was lost (%d records, %v)", trial, len(recs), err)
		}
	}
}

// A process that migrated an old record and stopped before removing it
// left both files: the next reader removes the old one and keeps the
// transcript as it is (no second copy of the history).
func TestRead_MigratedOldRecordLeftBehindGoes(t *testing.T) {
	const id = "hub_a18ab1a0f0rmat0000000000"
	dir := copyOld(t, "sessions")
	old := filepath.Join(dir, id+".json")
	data, _ := os.ReadFile(old)
	first, err := Read(dir, id)
	if err != nil || len(first) != 6 {
		t.Fatalf("read %d records, %v", len(first), err)
	}
	if err := os.WriteFile(old, data, 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := Read(dir, id)
	if err != nil || len(again) != len(first) {
		t.Fatalf("read %d records after the crash, %v; want %d", len(again), err, len(first))
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("the old record is still there: %v", err)
	}
}
