package adapters

import (
	"encoding/json"
	"testing"
)

// A blank line is no event, a line that is not JSON one raw event that
// still marshals, and a JSON line reaches the decoder trimmed.
func TestDecodeJSON_BlankInvalidAndValid(t *testing.T) {
	type rec struct{ Type string }
	decode := func(r *rec, line []byte) []Event {
		return []Event{{Type: EventText, Text: r.Type + "|" + string(line)}}
	}
	tests := []struct {
		name, line string
		want       Event
		none       bool
	}{
		{name: "blank", line: " \r\n", none: true},
		{name: "banner", line: "Loaded cached credentials.\n", want: Event{Type: EventRaw, Source: "x:invalid", Raw: json.RawMessage(`"Loaded cached credentials."`)}},
		{name: "json", line: "  {\"Type\":\"a\"}\r\n", want: Event{Type: EventText, Text: `a|{"Type":"a"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := DecodeJSON([]byte(tt.line), "x:invalid", decode)
			if tt.none {
				if len(evs) != 0 {
					t.Fatalf("got %+v, want no event", evs)
				}
				return
			}
			if len(evs) != 1 || evs[0].Type != tt.want.Type || evs[0].Text != tt.want.Text || evs[0].Source != tt.want.Source || string(evs[0].Raw) != string(tt.want.Raw) {
				t.Fatalf("got %+v, want %+v", evs, tt.want)
			}
		})
	}
}
