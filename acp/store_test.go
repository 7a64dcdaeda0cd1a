package acp

import (
	"strings"
	"testing"
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
	rec, ok := st.Get(sid)
	if !ok {
		t.Fatal("recorded session not found")
	}
	md := Markdown(rec, st.History(sid))
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
