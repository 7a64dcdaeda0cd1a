package pi

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
		case e.Type == adapters.EventText:
			s += ":" + e.Text
		case e.Tool != nil:
			s += ":" + e.Tool.ID + ":" + e.Tool.Title
		case e.Usage != nil:
			s += ":" + strings.Repeat("+", int(e.Usage.OutputTokens))
		case e.Type == adapters.EventDone:
			s += ":" + string(e.StopReason)
		}
		out = append(out, s)
	}
	return out
}

// A member of an unexpected type costs only that member, never the
// record's text, usage, tool call or failure.
func TestDecoder_OddMembersKeepTheText(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"usage whose cost is a string",
			[]string{`{"type":"message_end","message":{"role":"assistant","stopReason":"stop","usage":{"input":4,"output":3,"cost":"0.01"}}}`},
			[]string{"usage:+++"}},
		{"usage whose input count is a string",
			[]string{`{"type":"message_end","message":{"role":"assistant","stopReason":"stop","usage":{"input":"4","output":3}}}`},
			[]string{"usage:+++"}},
		{"failed message whose error is an object",
			[]string{
				`{"type":"message_end","message":{"role":"assistant","stopReason":"error","errorMessage":{"code":500}}}`,
				`{"type":"agent_end","willRetry":false}`,
			},
			[]string{"error", "done:end_turn"}},
		{"partial message whose other block has a numeric text",
			[]string{`{"type":"message_update","message":{"role":"assistant","content":[{"type":"image","text":5},{"type":"text","text":"hi"}]}}`},
			[]string{"text:hi"}},
		{"tool call whose name is a number",
			[]string{`{"type":"message_update","assistantMessageEvent":{"type":"toolcall_end","toolCall":{"id":"t1","name":7,"arguments":{"command":"ls"}}}}`},
			[]string{"tool_call:t1:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oddSummary(DecodePi([]byte(strings.Join(tt.lines, "\n"))))
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
		})
	}
}
