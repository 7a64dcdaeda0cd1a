package acpclient

import (
	"context"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// The agent's own options reach the front end, select and boolean, and a
// change goes back to the agent under its own id and type.
func TestSession_SurfacePassesTheAgentsOptionsThrough(t *testing.T) {
	s := startFake(t, adapters.SessionOptions{})
	ctx := context.Background()
	// The fake sends its commands right after session/new; Surface waits
	// for them only commandsWait, which a loaded machine can overrun.
	<-s.commandsKept
	sur, err := s.Surface(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(sur.Commands) != 1 || sur.Commands[0].Name != "web" {
		t.Errorf("commands %+v, want the agent's /web", sur.Commands)
	}
	want := map[string]string{"model": "fast", "effort": "medium", "web": "false"}
	for id, v := range want {
		if o, ok := sur.Find(id); !ok || o.Value != v {
			t.Errorf("option %s = %+v, want value %s", id, o, v)
		}
	}
	if o, _ := sur.Find("web"); !o.Boolean {
		t.Errorf("web option %+v is not a boolean", o)
	}
	if err := s.SetOption(ctx, "web", "true"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOption(ctx, "effort", "low"); err != nil {
		t.Fatal(err)
	}
	sur, _ = s.Surface(ctx)
	if o, _ := sur.Find("effort"); o.Value != "low" {
		t.Errorf("effort after the change = %q, want low", o.Value)
	}
	if err := s.SetOption(ctx, "nope", "x"); err == nil {
		t.Error("an option the agent does not have was set")
	}
}
