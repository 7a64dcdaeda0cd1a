package acp

import (
	"encoding/json"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// An agent's compaction reaches only clients that advertised
// session.compaction, as compaction_update.
func TestCompaction_OnlyForClientsThatAdvertiseIt(t *testing.T) {
	step := func(status string) string {
		b, _ := json.Marshal(map[string]any{"event": adapters.Event{Type: adapters.EventCompaction,
			Compaction: &adapters.Compaction{ID: "c1", Status: status, Summary: map[string]string{"completed": "Earlier: fixed the race."}[status]}}})
		return string(b)
	}
	for _, advertised := range []bool{true, false} {
		c := newClient(t, scriptFile(t, step("in_progress"), step("completed"), `{"event":{"type":"text","text":"done"}}`))
		caps := schema.ClientCapabilities{}
		if advertised {
			caps.Session = &schema.ClientSessionCapabilities{Compaction: &schema.Marker{}}
		}
		c.init(caps)
		sid := c.newSession(t.TempDir())
		c.prompt(sid, "go")
		var got []schema.CompactionUpdate
		for _, u := range c.updates(sid) {
			if u.Compaction != nil {
				got = append(got, *u.Compaction)
			}
		}
		switch {
		case !advertised && len(got) != 0:
			t.Errorf("a client without session.compaction got %+v", got)
		case advertised && (len(got) != 2 || got[0].Status != "in_progress" || got[1].Status != "completed" || len(got[1].Summary) != 1):
			t.Errorf("compaction updates %+v, want in_progress then completed with the summary", got)
		}
	}
}
