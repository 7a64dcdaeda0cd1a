package acpclient

import (
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// oddSummary names each event by what a user would miss if it were lost.
func oddSummary(evs []adapters.Event) []string {
	var out []string
	for _, e := range evs {
		s := string(e.Type)
		switch {
		case e.Type == adapters.EventRaw:
			s += ":" + e.Source
		case e.Type == adapters.EventText || e.Type == adapters.EventThought:
			s += ":" + e.Text
		case e.Tool != nil:
			s += ":" + e.Tool.ID + ":" + string(e.Tool.Status)
		case e.Usage != nil:
			s += ":" + strings.Repeat("+", int(e.Usage.ContextUsed))
		}
		out = append(out, s)
	}
	return out
}

// A member of an unexpected type costs only that member, never the
// update's text or tool result.
func TestDecoder_OddMembersKeepTheText(t *testing.T) {
	update := func(u string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":` + u + `}}`
	}
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"link whose size is a string",
			[]string{update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"resource_link","uri":"file:///w/a","name":"a","size":"12"}}`)},
			[]string{"text:file:///w/a"}},
		{"chunk whose message id is a number",
			[]string{update(`{"sessionUpdate":"agent_message_chunk","messageId":7,"content":{"type":"text","text":"hi"}}`)},
			[]string{"text:hi"}},
		{"tool update whose location line is a string",
			[]string{
				update(`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Read a","kind":"read","status":"in_progress"}`),
				update(`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","locations":[{"path":"/w/a","line":"3"}]}`),
			},
			[]string{"tool_call:t1:in_progress", "tool_update:t1:completed"}},
		{"usage whose cost amount is a string",
			[]string{update(`{"sessionUpdate":"usage_update","used":3,"size":10,"cost":{"amount":"0.1","currency":"USD"}}`)},
			[]string{"usage:+++"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oddSummary(DecodeACP([]byte(strings.Join(tt.lines, "\n"))))
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
		})
	}
}
