package gemini

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	fx "github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/permission"
)

func TestGeminiFixtures_Golden(t *testing.T) {
	fx.Golden(t, DecodeGemini, *update, "testdata/streamjson-*")
	fx.Golden(t, DecodeACP, *update, "testdata/acp-*")
}

func TestQuirks_QuotaUsage(t *testing.T) {
	res := `{"stopReason":"end_turn","_meta":{"quota":{"token_count":{"input_tokens":84,"output_tokens":34}}}}`
	stop, u := (&acpclient.ACPDecoder{Quirks: Quirks}).PromptResult([]byte(res))
	if stop != adapters.StopEndTurn || u == nil || u.InputTokens != 84 || u.OutputTokens != 34 {
		t.Fatalf("stop %q usage %+v", stop, u)
	}
	if _, u := (&acpclient.ACPDecoder{}).PromptResult([]byte(res)); u != nil {
		t.Fatalf("a generic ACP agent read gemini's quota: %+v", u)
	}
}

var geminiAwkwardLines = []string{
	`{"type":"init","session_id":"s","model":"m","MODEL":"x"}`,
	`{"type":"message","role":"assistant","content":"a\u00e9\ud800 ÿ","delta":true}`,
	`{"type":"message","role":"user","content":"echo"}`,
	`{"type":"tool_use","tool_name":"read_file","tool_id":"t","parameters":{"file_path":"/a","file_path":"/b"}}`,
	`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"u","parameters":{"command":5}}`,
	`{"type":"tool_use","tool_name":"x","tool_id":"v","parameters":null}`,
	`{"type":"tool_result","tool_id":"t","status":"error","output":null,"error":{"type":"e","message":"m"}}`,
	`{"type":"tool_result","tool_id":"t","status":"success","output":7}`,
	`{"type":"error","severity":"fatal","message":"boom\n x"}`,
	`{"type":"result","status":"success","stats":{"input_tokens":1,"output_tokens":2,"cached":3}}`,
	`{"type":"result","status":"error","error":{"type":"api","message":"quota"},"stats":{"input_tokens":1.5}}`,
	`{"type":"result","status":"success","stats":null}`,
	`{"type":"zzz"}`, `{"type":7}`, `null`, `[]`, `banner text`,
}

// Awkward lines and every recorded stream-json line decode without a panic
// into events that marshal.
func TestGeminiDecoder_AwkwardLinesDecodeCleanly(t *testing.T) {
	d := NewGeminiDecoder()
	for _, l := range geminiAwkwardLines {
		geminiDecodesCleanly(t, d, []byte(l))
	}
}

func FuzzGemini(f *testing.F) {
	fx.Seeds(f, "testdata/streamjson-*")
	for _, l := range geminiAwkwardLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) { geminiDecodesCleanly(t, NewGeminiDecoder(), line) })
}

func geminiDecodesCleanly(t *testing.T, d *GeminiDecoder, data []byte) {
	t.Helper()
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		if _, err := json.Marshal(d.Decode(l)); err != nil {
			t.Fatalf("events of %q not marshalable: %v", l, err)
		}
	}
}

// gemini's permission request for run_shell_command carries no raw input:
// the command is its title and the dir_path shows only in its text, "[in
// DIR] (description)". hub judges the command where it runs.
func TestQuirks_ShellRunsInItsDirPath(t *testing.T) {
	ws := t.TempDir()
	tests := []struct {
		name, title, text string
		hard              bool
	}{
		{"dir_path ~", "cat k >> .ssh/authorized_keys", "[in ~] (Add a key)", true},
		{"dir_path ~, background", "cp k .aws/credentials", "[in ~] [background]", true},
		{"a ] in the dir_path", "cat k >> .ssh/authorized_keys", "[in ~/a] (/..] (Add a key)", true},
		{"dir_path in the workspace", "cat k >> .ssh/authorized_keys", "[in sub] (Add a key)", false},
		{"no dir_path", "cat k >> .ssh/authorized_keys", "[current working directory " + ws + "] (Add a key)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			params, _ := json.Marshal(map[string]any{"sessionId": "s", "options": []any{},
				"toolCall": map[string]any{"toolCallId": "run_shell_command_1", "status": "pending", "title": tt.title, "kind": "execute",
					"locations": []any{}, "content": []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": tt.text}}}}})
			pr, err := (&acpclient.ACPDecoder{Quirks: Quirks}).DecodePermission(params)
			if err != nil {
				t.Fatal(err)
			}
			if _, hard := permission.HardDeny(permission.RequestOf(pr.Tool, ws)); hard != tt.hard {
				t.Errorf("hard deny %v, want %v (raw input %s)", hard, tt.hard, pr.Tool.RawInput)
			}
		})
	}
}
