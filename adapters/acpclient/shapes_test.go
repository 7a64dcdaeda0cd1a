package acpclient

import (
	"encoding/json"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// A permission request whose toolCall names only an id (or some fields)
// carries what the call's tool_call and its updates said before; the
// request's own fields win.
func TestDecodePermission_CompletedFromEarlierToolCall(t *testing.T) {
	tests := []struct {
		name    string
		updates []string
		request string
		check   func(t *testing.T, tc adapters.ToolCall)
	}{
		{"id only", []string{
			`{"sessionUpdate":"tool_call","toolCallId":"t","title":"Run","kind":"execute","rawInput":{"command":"ls"}}`,
			`{"sessionUpdate":"tool_call_update","toolCallId":"t","rawInput":{"command":"rm -rf ~"}}`,
		}, `{"toolCallId":"t"}`, func(t *testing.T, tc adapters.ToolCall) {
			if tc.Kind != adapters.KindExecute || string(tc.RawInput) != `{"command":"rm -rf ~"}` || tc.Title != "Run" {
				t.Errorf("got %+v", tc)
			}
		}},
		{"locations from an update", []string{
			`{"sessionUpdate":"tool_call","toolCallId":"t","title":"Edit","kind":"edit"}`,
			`{"sessionUpdate":"tool_call_update","toolCallId":"t","locations":[{"path":"/w/.env"}]}`,
		}, `{"toolCallId":"t","title":"Edit a file"}`, func(t *testing.T, tc adapters.ToolCall) {
			if len(tc.Locations) != 1 || tc.Locations[0].Path != "/w/.env" || tc.Title != "Edit a file" || tc.Kind != adapters.KindEdit {
				t.Errorf("got %+v", tc)
			}
		}},
		{"a diff's file", []string{
			`{"sessionUpdate":"tool_call","toolCallId":"t","kind":"edit","content":[{"type":"diff","path":"/w/.env","oldText":null,"newText":"KEY=1"}]}`,
		}, `{"toolCallId":"t"}`, func(t *testing.T, tc adapters.ToolCall) {
			if len(tc.Locations) != 1 || tc.Locations[0].Path != "/w/.env" {
				t.Errorf("got %+v", tc)
			}
		}},
		{"the request's fields win", []string{
			`{"sessionUpdate":"tool_call","toolCallId":"t","kind":"read","rawInput":{"path":"a.go"}}`,
		}, `{"toolCallId":"t","kind":"execute","rawInput":{"command":"cat .env"}}`, func(t *testing.T, tc adapters.ToolCall) {
			if tc.Kind != adapters.KindExecute || string(tc.RawInput) != `{"command":"cat .env"}` {
				t.Errorf("got %+v", tc)
			}
		}},
		{"a finished call is forgotten", []string{
			`{"sessionUpdate":"tool_call","toolCallId":"t","kind":"execute","rawInput":{"command":"ls"}}`,
			`{"sessionUpdate":"tool_call_update","toolCallId":"t","status":"completed"}`,
		}, `{"toolCallId":"t"}`, func(t *testing.T, tc adapters.ToolCall) {
			if tc.Kind != adapters.KindOther || tc.RawInput != nil {
				t.Errorf("got %+v", tc)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewACPDecoder()
			for _, u := range tt.updates {
				d.DecodeUpdate(json.RawMessage(u))
			}
			pr, err := d.DecodePermission(json.RawMessage(`{"sessionId":"s","toolCall":` + tt.request + `,"options":[]}`))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, pr.Tool)
		})
	}
}

// An id two options share is never sent back: the agent could read it as
// either option.
func TestDecide_SharedOptionIDNeverSent(t *testing.T) {
	pr := adapters.NewPermissionRequest(adapters.ToolCall{ID: "x"}, []adapters.PermissionOption{
		{ID: "a", Kind: adapters.AllowOnce}, {ID: "a", Kind: adapters.AllowAlways}, {ID: "r", Kind: adapters.RejectOnce}})
	for _, d := range []adapters.PermissionDecision{{Kind: adapters.AllowOnce}, {OptionID: "a"}, {Kind: adapters.RejectOnce}} {
		if r := decide(pr, d); r.Outcome.Outcome != "cancelled" {
			t.Errorf("decide(%+v) = %+v, want cancelled", d, r.Outcome)
		}
	}
}
