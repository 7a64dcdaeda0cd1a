package streamparse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeSameBothPaths decodes data line by line with the scanner paths and
// with encoding/json only (claude and qoder decoders); the events must be
// identical.
func claudeSameBothPaths(t *testing.T, data []byte) {
	t.Helper()
	fast, slow := NewClaudeDecoder(), NewClaudeDecoder()
	slow.slow = true
	qfast, qslow := NewQoderDecoder(), NewQoderDecoder()
	qslow.inner.slow = true
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		a, _ := json.Marshal(fast.Decode(l))
		b, _ := json.Marshal(slow.Decode(l))
		if !bytes.Equal(a, b) {
			t.Fatalf("claude paths differ on %q:\nscanner       %s\nencoding/json %s", l, a, b)
		}
		a, _ = json.Marshal(qfast.Decode(l))
		b, _ = json.Marshal(qslow.Decode(l))
		if !bytes.Equal(a, b) {
			t.Fatalf("qoder paths differ on %q:\nscanner       %s\nencoding/json %s", l, a, b)
		}
	}
}

func TestClaudeDecoder_ScannerMatchesEncodingJSON(t *testing.T) {
	extra := []string{
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}},"parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\u00e9\ud83d\ude00 \ud800"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1.0,"delta":{"type":"text_delta","text":"x"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":99999999999999999999,"delta":{"type":"text_delta","text":"x"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":"x"}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":null}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"Delta":{"type":"text_delta","text":"case"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"Bash"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\"ls\"}"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_stop","index":2}}`,
		`{"type":"stream_event","event":null}`, `{"type":"stream_event"}`, `{"type":"stream_event","event":[1]}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad ÿ utf8"}}}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"hi"},null,{"type":"tool_use","id":"u","name":"Read","input":{"file_path":"/x"}}]}}`,
		`{"type":"assistant","message":{"id":"m3","content":"plain"}}`,
		`{"type":"assistant","message":{"id":"m3","content":null}}`,
		`{"type":"assistant","message":{"id":"m3","content":7}}`,
		`{"type":"assistant","message":null}`,
		`{"type":"assistant","message":{"id":"m4","content":[{"type":"text","text":"x","is_error":"no"}]}}`,
		`{"type":"assistant","message":{"id":"m4","content":[5]}}`,
		`{"type":"assistant","message":{"id":"m5","content":[{"type":"text","text":"x"}]},"is_api_error_message":true}`,
		`{"type":"assistant","message":{"id":"m5","content":[{"type":"text","text":"x"}]},"is_api_error_message":1}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"u","content":[{"type":"text","text":"out"},{"type":"image","source":{"media_type":"image/png","data":"AA"}}],"is_error":true}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"u","content":"ok"}]},"tool_use_result":{"stdout":"ok"}}`,
		`{"type":"system","subtype":"init","session_id":"s","model":"m","slash_commands":["a","b"],"claude_code_version":"2"}`,
		`{"type":"system","subtype":"init","session_id":"s","model":"m","slash_commands":["a",null,3]}`,
		`{"type":"system","subtype":"init","session_id":"s","slash_commands":[]}`,
		`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"error_status":429,"error":"rate_limit"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"r","usage":{"input_tokens":1}}`,
		`{"type":"result","subtype":"success","is_error":null,"stop_reason":null,"parent_tool_use_id":"p"}`,
		`{"type":"result","stop_reason":5}`,
		`{"type":"result","subtype":"success","total_cost_usd":0.25,"usage":{"input_tokens":3,"output_tokens":2,"output_tokens_details":{"thinking_tokens":1}},"modelUsage":{"a\u00e9":{"contextWindow":200000},"b":{"contextWindow":5},"b":{"contextWindow":7}}}`,
		`{"type":"result","usage":{"input_tokens":1.5}}`, `{"type":"result","total_cost_usd":1e400}`,
		`{"type":"result","modelUsage":{"m":null}}`, `{"type":"result","modelUsage":{"m":{"ContextWindow":3}}}`,
		`{"type":"result","usage":{"output_tokens_details":5}}`,
		`{"TYPE":"assistant"}`, `{"type":"x","type":"y"}`, `{"typ\u0065":"user"}`, `null`, `[]`, `{"type":"user"} trailing`,
		`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`,
	}
	data := []byte(strings.Join(extra, "\n"))
	for _, dir := range []string{"claude", "qodercli"} {
		paths, _ := filepath.Glob(filepath.Join("..", "testdata", dir, "*", "stream.jsonl"))
		for _, p := range paths {
			d, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = append(append(data, '\n'), d...)
		}
	}
	claudeSameBothPaths(t, data)
}
