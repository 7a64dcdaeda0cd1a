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

// A member of an unexpected type is left zero and the rest is read; a value
// that is not JSON, or not an object at all, is still an error.
func TestUnmarshal_OddMemberLeftZero(t *testing.T) {
	type usage struct{ In, Out int64 }
	type rec struct {
		Text  string
		Usage *usage
		After string
	}
	tests := []struct {
		name, data string
		want       rec
		err        bool
	}{
		{name: "count a string", data: `{"Text":"hi","Usage":{"In":"3","Out":2},"After":"z"}`, want: rec{Text: "hi", Usage: &usage{Out: 2}, After: "z"}},
		{name: "object a string", data: `{"Usage":"n/a","Text":"hi","After":"z"}`, want: rec{Text: "hi", Usage: &usage{}, After: "z"}},
		{name: "whole value a string", data: `"hi"`, err: true},
		{name: "not JSON", data: `{"Text":`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got rec
			err := Unmarshal([]byte(tt.data), &got)
			if (err != nil) != tt.err {
				t.Fatalf("error %v, want error %v", err, tt.err)
			}
			if tt.err {
				return
			}
			if got.Text != tt.want.Text || got.After != tt.want.After || *got.Usage != *tt.want.Usage {
				t.Errorf("got %+v (usage %+v), want %+v (usage %+v)", got, got.Usage, tt.want, tt.want.Usage)
			}
		})
	}
}
