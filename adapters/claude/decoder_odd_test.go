package claude

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
			s += ":" + e.MessageID + ":" + e.Text
		case e.Tool != nil:
			s += ":" + e.Tool.ID
			for _, c := range e.Tool.Content {
				s += ":" + c.Text
			}
		case e.Type == adapters.EventDone:
			s += ":" + string(e.StopReason)
		}
		out = append(out, s)
	}
	return out
}

// A member of an unexpected type costs only that member: the line's text,
// tool results and turn end are still read (hub's rule: a decoder never
// loses what it can read).
func TestDecoder_OddMembersKeepTheText(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"assistant usage count as a string",
			[]string{`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":"12","output_tokens":3}}}`},
			[]string{"text:m1:hi"}},
		{"assistant usage a string",
			[]string{`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}],"usage":"n/a"}}`},
			[]string{"text:m1:hi"}},
		{"assistant parent id a number",
			[]string{`{"type":"assistant","parent_tool_use_id":5,"message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}`},
			[]string{"text:m1:hi"}},
		{"a number among the content blocks",
			[]string{`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"},5]}}`},
			[]string{"text:m1:hi"}},
		{"tool result image source a string",
			[]string{
				`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
				`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"image","source":"x"},{"type":"text","text":"out"}]}],"usage":{"input_tokens":"1"}}}`,
			},
			[]string{"tool_call:t1", "tool_update:t1:out"}},
		{"user message content block source a string",
			[]string{
				`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
				`{"type":"user","message":{"content":[{"type":"image","source":"x"},{"type":"tool_result","tool_use_id":"t1","content":"out"}]}}`,
			},
			[]string{"tool_call:t1", "tool_update:t1:out"}},
		{"message_start content source a string",
			[]string{
				`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1","content":[{"type":"image","source":"x"}]}}}`,
				`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}}`,
				`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}`,
			},
			[]string{"text:m1:hi"}},
		{"message_start usage null counts",
			[]string{
				`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1","content":[],"usage":{"input_tokens":null,"output_tokens":"1"}}}}`,
				`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}}`,
				`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}`,
			},
			[]string{"text:m1:hi"}},
		{"result usage a string",
			[]string{`{"type":"result","subtype":"success","usage":"n/a","result":"done"}`},
			[]string{"usage", "done:end_turn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oddSummary(DecodeClaude([]byte(strings.Join(tt.lines, "\n"))))
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
		})
	}
}
