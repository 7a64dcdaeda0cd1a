package gemini

import (
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
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
			s += ":" + e.Tool.ID + ":" + string(e.Tool.Status)
		case e.Error != nil:
			s += ":" + e.Error.Message
		}
		out = append(out, s)
	}
	return out
}

// A member of an unexpected type costs only that member, never the line's
// text, tool result or turn end.
func TestDecoder_OddMembersKeepTheText(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"result whose token count is a string",
			[]string{`{"type":"result","status":"success","stats":{"input_tokens":"5","output_tokens":2}}`},
			[]string{"usage", "done"}},
		{"message whose delta flag is a string",
			[]string{`{"type":"message","role":"assistant","content":"hi","delta":"yes","timestamp":5,"model":{"id":"g"}}`},
			[]string{"text:hi"}},
		{"tool result whose output is a number",
			[]string{`{"type":"tool_result","tool_id":"t1","status":"success","output":5}`},
			[]string{"tool_update:t1:completed"}},
		{"failed result whose error is a string",
			[]string{`{"type":"result","status":"error","error":"quota exhausted"}`},
			[]string{"error:gemini reported an error", "done"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oddSummary(DecodeGemini([]byte(strings.Join(tt.lines, "\n"))))
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
		})
	}
}

// The quota gemini reports with an ACP prompt's result keeps its counts
// when another of its members is odd.
func TestQuirks_OddQuotaMemberKeepsTheUsage(t *testing.T) {
	res := `{"stopReason":"end_turn","_meta":{"quota":{"token_count":{"input_tokens":"84","output_tokens":34}}}}`
	if _, u := (&acpclient.ACPDecoder{Quirks: Quirks}).PromptResult([]byte(res)); u == nil || u.OutputTokens != 34 {
		t.Fatalf("usage %+v, want the output tokens", u)
	}
}
