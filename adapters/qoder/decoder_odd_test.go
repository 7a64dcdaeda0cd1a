package qoder

import (
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// A member of an unexpected type costs only that member, never the line's
// text or turn end (qodercli's lines go through claude's decoder).
func TestDecoder_OddMembersKeepTheText(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"usage whose count is a string",
			[]string{
				`{"type":"assistant","message":{"id":"m1","model":"q","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":"3"}}}`,
				`{"type":"result","subtype":"success","usage":{"output_tokens":"1"}}`,
			},
			[]string{"text:hi", "usage", "done:end_turn"}},
		{"synthetic failure whose usage is a string",
			[]string{
				`{"type":"assistant","message":{"id":"m1","model":"<synthetic>","content":[{"type":"text","text":"model unavailable"}],"usage":"n/a"}}`,
				`{"type":"result","subtype":"success","is_error":true,"result":"model unavailable","errors":["model unavailable"]}`,
			},
			[]string{"error:qodercli: model unavailable", "done:end_turn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range DecodeQoder([]byte(strings.Join(tt.lines, "\n"))) {
				s := string(e.Type)
				switch {
				case e.Type == adapters.EventRaw:
					s += ":" + e.Source
				case e.Type == adapters.EventText:
					s += ":" + e.Text
				case e.Error != nil:
					s += ":" + e.Error.Message
				case e.Type == adapters.EventDone:
					s += ":" + string(e.StopReason)
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
		})
	}
}
