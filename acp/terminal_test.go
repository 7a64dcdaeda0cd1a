package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// C33: terminals an agent created through the session and did not release
// are released when the session closes; released ones are not released twice.
func TestTerminals_LeftoversReleasedOnClose(t *testing.T) {
	c := newClient(t, "")
	var mu sync.Mutex
	var released []string
	next := 0
	c.fs = func(method string, params json.RawMessage) (any, *jsonrpc.Error) {
		mu.Lock()
		defer mu.Unlock()
		var p schema.TerminalRequest
		_ = json.Unmarshal(params, &p)
		switch method {
		case "terminal/create":
			next++
			return schema.CreateTerminalResponse{TerminalID: fmt.Sprintf("term-%d", next)}, nil
		case "terminal/release":
			released = append(released, p.TerminalID)
		}
		return json.RawMessage("null"), nil
	}
	c.init(schema.ClientCapabilities{Terminal: true})
	sid := c.newSession(t.TempDir())
	c.prompt(sid, "x")
	a, _ := c.reg.Get("replay")
	ed := a.(*replay.Adapter).Starts()[0].Editor
	for range 3 {
		if _, err := ed.Call(t.Context(), "terminal/create", json.RawMessage(`{"command":"ls"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ed.Call(t.Context(), "terminal/release", json.RawMessage(`{"terminalId":"term-2"}`)); err != nil {
		t.Fatal(err)
	}
	c.must("session/close", schema.SessionIDRequest{SessionID: sid}, nil)
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(released, ",")
	if got != "term-2,term-1,term-3" && got != "term-2,term-3,term-1" {
		t.Fatalf("releases %q, want term-2 by the agent then term-1 and term-3 once each", got)
	}
}

// The editor client an agent gets forwards only the fs and terminal methods
// the editor advertised: never a permission request, which only the
// session's gate puts to the editor, nor any other client method.
func TestEditorClient_CallForwardsOnlyWhatTheEditorOffers(t *testing.T) {
	ed := &editorClient{caps: schema.ClientCapabilities{FS: schema.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}}
	for _, method := range []string{"session/request_permission", "elicitation/create", "session/update", "fs/delete", "terminal"} {
		if _, err := ed.Call(context.Background(), method, json.RawMessage(`{}`)); !errors.Is(err, ErrNoCapability) {
			t.Errorf("%s: %v, want ErrNoCapability before anything reaches the editor", method, err)
		}
	}
}

// C33: a terminal content item must name a terminal of this session that is
// live when the item is first sent; others are dropped.
func TestToolContent_TerminalMustBeLive(t *testing.T) {
	s := newServer(Options{Logger: zerolog.Nop()})
	ed := &editorClient{}
	ss := &session{srv: s, rec: &Record{Cwd: "/w"}, editor: ed, seenTools: map[string]bool{}}
	ed.track("terminal/create", nil, json.RawMessage(`{"terminalId":"live"}`), nil)
	ed.track("terminal/create", nil, json.RawMessage(`{"terminalId":"gone"}`), nil)
	ed.track("terminal/release", json.RawMessage(`"gone"`), nil, nil)
	ed.track("terminal/create", nil, nil, jsonrpc.NewError(schema.CodeInternalError, "no", nil))
	cases := []struct {
		id   string
		keep bool
	}{
		{"live", true},
		{"gone", false},    // released before it was ever sent
		{"unknown", false}, // never created here
		{"", false},
	}
	for _, tc := range cases {
		_, ok := ss.editor.toolContent(adapters.ToolContent{Type: adapters.ToolContentTerminal, TerminalID: tc.id})
		if ok != tc.keep {
			t.Errorf("terminal %q kept=%v, want %v", tc.id, ok, tc.keep)
		}
	}
	ed.track("terminal/release", json.RawMessage(`"live"`), nil, nil)
	if _, ok := ss.editor.toolContent(adapters.ToolContent{Type: adapters.ToolContentTerminal, TerminalID: "live"}); !ok {
		t.Error("a terminal sent while live may be referenced again after release")
	}
}
