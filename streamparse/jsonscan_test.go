package streamparse

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestJSONPick_PicksMembersInOnePass(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
		want []string
	}{
		{"all present", `{"method":"x","params":{"a":[1,2]},"id":7}`, true, []string{`"x"`, `{"a":[1,2]}`, `7`}},
		{"some missing", ` {"id":"s","other":null} `, true, []string{"", "", `"s"`}},
		{"nested keys ignored", `{"params":{"method":"inner"}}`, true, []string{"", `{"method":"inner"}`, ""}},
		{"duplicate refused", `{"id":1,"id":2}`, false, nil},
		{"case-variant key refused", `{"ID":1}`, false, nil},
		{"escaped key refused", `{"\u0069d":1}`, false, nil},
		{"non-ASCII key refused", `{"idx":1,"méthode":2}`, false, nil},
		{"not an object", `[1]`, false, nil},
		{"trailing garbage", `{"id":1} x`, false, nil},
		{"truncated", `{"method":"x","params":{`, false, nil},
	}
	keys := []string{"method", "params", "id"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals := make([][]byte, len(keys))
			ok := jsonPick([]byte(tt.in), keys, vals)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			got := make([]string, len(vals))
			for i, v := range vals {
				got[i] = string(v)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJSONString_MatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{`""`, `"plain"`, `"tab\tand \u00e9 \ud83d\ude00"`, `"cafÃ©"`, `"bad ÿ byte"`, `"\ud800 lone"`} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		got, ok := jsonString([]byte(in))
		if !ok || got != want {
			t.Errorf("jsonString(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := jsonString([]byte(`12`)); ok {
		t.Error("a number is not a string")
	}
}

func FuzzJSONScan(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,true,null,"x\u00e9\n"]}`, `{"a":01}`, `[1,]`, `"\ud800"`, `{"a" 1}`, `-`, `1.`, `{}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		end := jsonSkip(data, 0)
		ok := end >= 0 && jsonWS(data, end) == len(data)
		if ok != json.Valid(data) {
			t.Fatalf("scanner valid=%v, encoding/json valid=%v for %q", ok, json.Valid(data), data)
		}
		if ok && len(data) > 0 && jsonWS(data, 0) < len(data) && data[jsonWS(data, 0)] == '"' {
			v := data[jsonWS(data, 0):end]
			var want string
			_ = json.Unmarshal(v, &want)
			if got := jsonUnquote(v); got != want && utf8.ValidString(want) && utf8.Valid(v) {
				t.Fatalf("unquote %q = %q, want %q", v, got, want)
			}
			if got, _ := jsonString(v); got != want && utf8.Valid(v) {
				t.Fatalf("jsonString %q = %q, want %q", v, got, want)
			}
		}
	})
}

func TestJSONSkipString_SpecialByteAtEveryOffset(t *testing.T) {
	for _, special := range []string{`"`, `\n`, `\u00e9`, "\x01", "\xc3\xa9"} {
		for n := 0; n < 20; n++ {
			for tail := 0; tail < 10; tail++ {
				in := []byte(`"` + strings.Repeat("a", n) + special + strings.Repeat("b", tail) + `"`)
				if special == `"` {
					in = []byte(`"` + strings.Repeat("a", n) + `"` + strings.Repeat("b", tail))
				}
				end := jsonSkipString(in, 0)
				var s string
				err := json.Unmarshal(in[:max(end, 0)], &s)
				if (end >= 0) != (err == nil) {
					t.Fatalf("%q: end %d, encoding/json err %v", in, end, err)
				}
				if special == `"` && end != n+2 {
					t.Fatalf("%q: end %d, want %d", in, end, n+2)
				}
			}
		}
	}
}
