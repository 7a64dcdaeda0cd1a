package acp

import (
	"fmt"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
)

// A save writes a copy of the record of its own: an agent switch noting
// where an agent left the session (Left) while a save writes the metadata
// to disk does not race with it (-race catches it), and the last save
// holds every mark.
func TestSession_SaveDuringAgentSwitchDoesNotRace(t *testing.T) {
	s := newServer(Options{Logger: zerolog.Nop(), StateDir: t.TempDir()})
	ss := &session{srv: s, rec: &Record{SessionID: "s1", Cwd: "/w", Left: map[string]AgentMark{}}, seenTools: map[string]bool{}}
	ss.record(schema.SessionUpdate{AgentMessageChunk: &schema.ContentChunk{Content: schema.TextBlock("a")}})
	const n = 50
	for i := range n {
		saved := make(chan struct{})
		go func() { defer close(saved); ss.save() }()
		ss.mu.Lock()
		ss.rec.Left[fmt.Sprint("agent", i)] = AgentMark{SessionID: fmt.Sprint("id", i), Seen: i}
		ss.mu.Unlock()
		<-saved
	}
	ss.save()
	if rec, ok := OpenStore(s.opts.StateDir).Get("s1"); !ok || len(rec.Left) != n {
		t.Fatalf("saved record %+v: want the %d marks", rec, n)
	}
}
