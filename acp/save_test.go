package acp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
)

// A save (a model change, say) while chunks stream must not race with the
// chunk merge rewriting the last history entry (-race catches it), and the
// saved history holds every byte streamed, once (a saved entry is never
// merged into again, so it is never saved stale).
func TestSession_SaveDuringStreamingDoesNotRace(t *testing.T) {
	var tick atomic.Int64
	s := newServer(Options{Logger: zerolog.Nop(), Now: func() time.Time { return time.Unix(tick.Add(1), 0) }})
	ss := &session{srv: s, rec: &Record{SessionID: "s1", Cwd: "/w"}, seenTools: map[string]bool{}}
	chunk := func(text string) schema.SessionUpdate {
		return schema.SessionUpdate{AgentMessageChunk: &schema.ContentChunk{Content: schema.TextBlock(text)}}
	}
	ss.record(chunk("a"))
	for range 50 {
		ss.record(chunk("b")) // opens the merge of the last entry
		before := ss.snapshotTime()
		saved := make(chan struct{})
		go func() { defer close(saved); ss.save() }()
		// Once save has left the lock, the merge below is unordered with
		// whatever save still does outside it.
		for ss.snapshotTime() == before {
			runtime.Gosched()
		}
		ss.record(chunk("c"))
		ss.mu.Lock()
		ss.flushChunk()
		ss.mu.Unlock()
		<-saved
	}
	ss.save()
	var text strings.Builder
	for _, u := range s.index.History("s1") {
		text.WriteString(u.AgentMessageChunk.Content.Text)
	}
	if text.Len() != 101 || strings.Count(text.String(), "b") != 50 {
		t.Fatalf("saved text %q: want the 101 bytes streamed, each once", text.String())
	}
}

func (ss *session) snapshotTime() time.Time {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.rec.UpdatedAt
}

// A session reaches the disk with its first turn, as one file starting
// with its session record; then each turn appends its history and its
// metadata, and rewrites nothing.
func TestIndex_WritesNothingBeforeATurnThenAppends(t *testing.T) {
	state := t.TempDir()
	c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"answer"}}`), func(o *Options) { o.StateDir = state })
	sid, _ := c.start(t)
	files := func() []string {
		m, _ := filepath.Glob(filepath.Join(state, "sessions", "*"))
		return m
	}
	if f := files(); len(f) != 0 {
		t.Fatalf("session/new wrote %v", f)
	}
	lines := func() int {
		b, _ := os.ReadFile(filepath.Join(state, "sessions", sid+".jsonl"))
		return strings.Count(string(b), "\n")
	}
	c.prompt(sid, "one")
	first := lines()
	c.prompt(sid, "two")
	if first < 2 || lines() != 2*first-1 {
		t.Fatalf("lines %d then %d: want each turn appended", first, lines())
	}
	if f := files(); len(f) != 1 {
		t.Fatalf("session files %v: want one", f)
	}
}

// A save that fails keeps every entry it did not write for the next save,
// however long the history grew meanwhile (its trim keeps in memory only
// what is on disk too): nothing is lost because the disk was away once.
func TestSession_FailedSaveOfALongHistoryLosesNothing(t *testing.T) {
	tests := []struct {
		name    string
		entries int
	}{
		{name: "short", entries: 10},
		{name: "beyond the trim", entries: 2*memHistory + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := t.TempDir()
			s := newServer(Options{Logger: zerolog.Nop(), StateDir: state, Now: time.Now})
			ss := &session{srv: s, rec: &Record{SessionID: "s1", Cwd: "/w"}, seenTools: map[string]bool{}}
			for i := range tt.entries {
				c := &schema.ContentChunk{Content: schema.TextBlock(fmt.Sprint(i))}
				if i%2 == 0 { // user and agent in turn: no chunk merges into the one before
					ss.record(schema.SessionUpdate{UserMessageChunk: c})
				} else {
					ss.record(schema.SessionUpdate{AgentMessageChunk: c})
				}
			}
			dir := IndexDir(state)
			if err := os.WriteFile(dir, nil, 0o600); err != nil { // no index dir: the save fails
				t.Fatal(err)
			}
			if err := ss.save(); err == nil {
				t.Fatal("a save without its index dir succeeded")
			}
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := ss.save(); err != nil {
				t.Fatal(err)
			}
			if got := len(s.index.History("s1")); got != tt.entries {
				t.Fatalf("%d entries saved after the disk came back: want all %d", got, tt.entries)
			}
		})
	}
}
