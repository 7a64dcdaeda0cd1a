package codex

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
		case e.Error != nil:
			s += ":" + e.Error.Message
		case e.Type == adapters.EventDone:
			s += ":" + string(e.StopReason)
		}
		out = append(out, s)
	}
	return out
}

// A member of an unexpected type costs only that member, never the
// record's text, tool call or turn end.
func TestDecoder_OddMembersKeepTheText(t *testing.T) {
	tests := []struct {
		name   string
		decode func([]byte) []adapters.Event
		lines  []string
		want   []string
	}{
		{"failed turn whose details are an object", DecodeCodex,
			[]string{`{"method":"turn/completed","params":{"turn":{"status":"failed","error":{"message":"boom","additionalDetails":{"why":"x"}}}}}`},
			[]string{"error:boom", "done:end_turn"}},
		{"usage with the context window as a string", DecodeCodex,
			[]string{`{"method":"thread/tokenUsage/updated","params":{"tokenUsage":{"total":{"inputTokens":5},"last":{"inputTokens":5},"modelContextWindow":"200000"}}}`},
			[]string{"usage"}},
		{"delta whose item id is a number", DecodeCodex,
			[]string{`{"method":"item/agentMessage/delta","params":{"itemId":7,"delta":"hi"}}`},
			[]string{"text::hi"}},
		{"command whose exit code is a string", DecodeCodex,
			[]string{`{"method":"item/started","params":{"item":{"type":"commandExecution","id":"c1","command":"ls","cwd":"/w","exitCode":"x"}}}`},
			[]string{"tool_call:c1"}},
		{"file change whose kind is a number", DecodeCodex,
			[]string{`{"method":"item/started","params":{"item":{"type":"fileChange","id":"f1","changes":[{"path":"/w/a","kind":5,"diff":"+a"}]}}}`},
			[]string{"tool_call:f1"}},
		{"exec turn whose usage count is a string", DecodeCodexExec,
			[]string{`{"type":"turn.completed","usage":{"input_tokens":"5","output_tokens":2}}`},
			[]string{"usage", "done:end_turn"}},
		{"exec message whose exit code is a string", DecodeCodexExec,
			[]string{`{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"hi","exit_code":"0"}}`},
			[]string{"text:i1:hi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oddSummary(tt.decode([]byte(strings.Join(tt.lines, "\n"))))
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
		})
	}
}
