package acp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
)

// Session ids name files: an id hub could not have made is invalid params
// before anything touches a file, and never maps onto another session's.
func TestSessionID_InvalidIsInvalidParams(t *testing.T) {
	state := t.TempDir()
	c := newClient(t, "", func(o *Options) { o.StateDir = state })
	sid, cwd := c.start(t)
	c.prompt(sid, "keep me")
	file := filepath.Join(state, "sessions", sid+".jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the session was not saved: %v", err)
	}
	twin := strings.Replace(sid, "_", ".", 1) // "hub.X" once mapped to "hub_X"
	bad := []string{twin, "../" + sid, sid + "/x", `..\` + sid, "", strings.Repeat("a", 10000), "hub_é", "a b", "x\x00y"}
	for _, id := range bad {
		for _, tc := range []struct {
			method string
			params any
		}{
			{"session/delete", map[string]any{"sessionId": id}},
			{"session/close", map[string]any{"sessionId": id}},
			{"session/load", map[string]any{"sessionId": id, "cwd": cwd, "mcpServers": []any{}}},
			{"session/resume", map[string]any{"sessionId": id, "cwd": cwd}},
			{"session/fork", map[string]any{"sessionId": id, "cwd": cwd}},
			{"session/prompt", map[string]any{"sessionId": id, "prompt": []schema.ContentBlock{schema.TextBlock("x")}}},
			{"session/set_mode", map[string]any{"sessionId": id, "modeId": "plan"}},
			{"session/set_config_option", map[string]any{"sessionId": id, "configId": "model", "value": "x"}},
			{"_session/steering", map[string]any{"sessionId": id, "prompt": []schema.ContentBlock{schema.TextBlock("x")}}},
		} {
			if _, e := c.call(tc.method, tc.params); e == nil || e.Code != schema.CodeInvalidParams {
				t.Errorf("%s %.20q: got %+v, want invalid params", tc.method, id, e)
			}
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("a lookalike id deleted the session: %v", err)
	}
	st := OpenStore(state)
	if _, ok := st.Get(sid); !ok {
		t.Fatal("the session is gone from the store")
	}
	for _, id := range bad {
		if err := st.Delete(id); !errors.Is(err, ErrBadSessionID) {
			t.Errorf("Store.Delete(%.20q) = %v, want ErrBadSessionID", id, err)
		}
	}
}
