package acp

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
)

// A save (a model change, say) while chunks stream must not race with the
// chunk merge rewriting the last history entry (-race catches it), and the
// saved record holds the text streamed before it.
func TestSession_SaveDuringStreamingDoesNotRace(t *testing.T) {
	var tick atomic.Int64
	s := newServer(Options{Logger: zerolog.Nop(), Now: func() time.Time { return time.Unix(tick.Add(1), 0) }})
	ss := &session{srv: s, rec: &Record{SessionID: "s1", Cwd: "/w"}, seenTools: map[string]bool{}}
	chunk := func(text string) schema.SessionUpdate {
		return withChunk(schema.UpdateAgentMessageChunk, &schema.ContentChunk{Content: schema.TextBlock(text)})
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
	rec, ok := s.index.Get("s1")
	if !ok || len(rec.History) != 1 {
		t.Fatalf("saved record %+v", rec)
	}
	if got := rec.History[0].AgentMessageChunk.Content.Text; len(got) != 101 {
		t.Fatalf("saved text has %d bytes, want 101", len(got))
	}
}

func (ss *session) snapshotTime() time.Time {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.rec.UpdatedAt
}
