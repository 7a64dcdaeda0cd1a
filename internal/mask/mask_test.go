package mask

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestString_TokenShapesMasked(t *testing.T) {
	tests := []struct{ in, want string }{
		{"key sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789", "key sk-proj-[masked]"},
		{"sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345-_xyz done", "sk-ant-[masked] done"},
		{"OPENAI=sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij", "OPENAI=sk-[masked]"},
		{"deepseek sk-0123456789abcdef0123456789abcdef", "deepseek sk-[masked]"},
		{"ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "ghp_[masked]"},
		{"gho_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 ghu_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "gho_[masked] ghu_[masked]"},
		{"ghs_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789;ghr_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "ghs_[masked];ghr_[masked]"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_[masked]"},
		{"aws AKIAIOSFODNN7EXAMPLE and ASIAIOSFODNN7EXAMPL2.", "aws AKIA[masked] and ASIA[masked]."},
		{"slack xoxb-1234567890-abcdefghij", "slack xoxb-[masked]"},
		{"xoxp-1234567890-0987654321-abcdef", "xoxp-[masked]"},
		{"glpat-AbCdEfGhIjKlMnOpQrSt", "glpat-[masked]"},
		{"AIzaSyA-AbCdEfGhIjKlMnOpQrStUvWxYz01234", "AIza[masked]"},
		{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
			"Bearer eyJ[masked]"},
		{`"token":"ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"`, `"token":"ghp_[masked]"`},
	}
	m := New(nil)
	for _, tt := range tests {
		if got := m.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestString_NearMissesKept(t *testing.T) {
	for _, in := range []string{
		"sk-short1",
		"pip install sk-learn-tutorials-for-beginners", // no digit: a word
		"task-0123456789abcdefghijklmnop",              // sk- inside a word
		"ghp_short123",
		"xghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", // not at a word start
		"AKIAIOSFODNN7EXAMPLEX",                     // 17 after the prefix
		"AKIAiosfodnn7example",                      // lower case
		"xoxq-1234567890-abcdef",
		"glpat-short",
		"eyJhbGciOiJIUzI1NiJ9 alone",
		"KEY=1 TOKEN=on",
		"",
	} {
		if got := New(nil).String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

func TestNew_SecretEnvironmentValues(t *testing.T) {
	m := New([]string{
		"MY_API_KEY=hunter2hunter2", "GH_TOKEN=tok-0000-1111", "db_password=p@ss w0rd!", "AppSecret=s3cr3t-val",
		"SHORT_KEY=1234567", // too short: would mask common text
		"HOME=/home/someone/dir", "PATH=/usr/bin:/bin", "NO_EQUALS",
		"OUTER_TOKEN=abc-hunter2hunter2-xyz", // contains another secret: masked whole
	})
	tests := []struct{ in, want string }{
		{"key is hunter2hunter2.", "key is [masked]."},
		{"tok-0000-1111 and p@ss w0rd! and s3cr3t-val", "[masked] and [masked] and [masked]"},
		{"x abc-hunter2hunter2-xyz y", "x [masked] y"},
		{"1234567 /home/someone/dir /usr/bin:/bin", "1234567 /home/someone/dir /usr/bin:/bin"},
	}
	for _, tt := range tests {
		if got := m.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSON_MasksInsideStringsOnly(t *testing.T) {
	m := New([]string{`QUOTED_SECRET=a"b\c-secret`, "PLAIN_TOKEN=plainvalue1"})
	in := []byte(`{"a":"x plainvalue1 y","b":"a\"b\\c-secret","c":["ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"],"plainvalue1":1,"n":2}` + "\n" +
		`{"t":"unchanged \u00e9 \"q\""}` + "\n")
	got := m.JSON(in)
	lines := bytes.Split(bytes.TrimSpace(got), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("lines = %q", got)
	}
	var v map[string]any
	if err := json.Unmarshal(lines[0], &v); err != nil {
		t.Fatalf("masked JSON does not parse: %v\n%s", err, got)
	}
	if v["a"] != "x [masked] y" || v["b"] != "[masked]" || v["c"].([]any)[0] != "ghp_[masked]" || v["[masked]"] != 1.0 || v["n"] != 2.0 {
		t.Errorf("masked = %s", lines[0])
	}
	if !bytes.Equal(lines[1], []byte(`{"t":"unchanged \u00e9 \"q\""}`)) {
		t.Errorf("an unchanged line was re-encoded: %s", lines[1])
	}
	if strings.Contains(string(got), "secret") || strings.Contains(string(got), "plainvalue1") {
		t.Errorf("secret left: %s", got)
	}
}

func TestJSON_UnterminatedLeftAlone(t *testing.T) {
	in := []byte(`{"a":"ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789`)
	if got := New(nil).JSON(in); !bytes.Equal(got, in) {
		t.Errorf("got %s", got)
	}
}

func TestWriter_MasksEachWrite(t *testing.T) {
	var text, js bytes.Buffer
	m := New([]string{"X_TOKEN=tok-value-1"})
	n, err := m.Writer(&text).Write([]byte("a tok-value-1 b\n"))
	if err != nil || n != len("a tok-value-1 b\n") || text.String() != "a [masked] b\n" {
		t.Errorf("text: %d %v %q", n, err, text.String())
	}
	_, _ = m.JSONWriter(&js).Write([]byte(`{"x":"tok-value-1"}` + "\n"))
	if js.String() != `{"x":"[masked]"}`+"\n" {
		t.Errorf("json: %q", js.String())
	}
	var nilM *Masker
	if w := nilM.Writer(&text); w != &text {
		t.Error("a nil masker wraps")
	}
}
