package acpclient

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// acpDecodesCleanly decodes data line by line: no line may panic or yield
// events that do not marshal.
func acpDecodesCleanly(t *testing.T, d adapters.LineDecoder, data []byte) {
	t.Helper()
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		if _, err := json.Marshal(d.Decode(l)); err != nil {
			t.Fatalf("events of %q not marshalable: %v", l, err)
		}
	}
}

// acpFixtureData joins the awkward lines and every stream.jsonl matched by globs.
func acpFixtureData(t *testing.T, extra []string, globs ...string) []byte {
	t.Helper()
	data := []byte(strings.Join(extra, "\n"))
	for _, g := range globs {
		paths, _ := filepath.Glob(filepath.Join(g, "stream.jsonl"))
		if len(paths) == 0 {
			t.Fatalf("no fixtures match %s", g)
		}
		for _, p := range paths {
			d, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = append(append(data, '\n'), d...)
		}
	}
	return data
}

const acpUp = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":`

var acpAwkwardLines = []string{
	acpUp + `{"sessionUpdate":"plan","entries":[]}}}`,
	acpUp + `{"sessionUpdate":"plan","entries":null}}}`,
	acpUp + `{"sessionUpdate":"plan"}}}`,
	acpUp + `{"sessionUpdate":"plan","entries":[null]}}}`,
	acpUp + `{"sessionUpdate":"plan","entries":[{"content":"a","CONTENT":"b"}]}}}`,
	acpUp + `{"sessionUpdate":"plan","entries":[{"content":"a","content":"b","status":7}]}}}`,
	acpUp + `{"sessionUpdate":"plan","entries":[{"content":"a\u00e9\ud800","priority":null}]}}}`,
	acpUp + `{"sessionUpdate":"plan","entries":{}}}}`,
	acpUp + `{"sessionUpdate":"usage_update","used":1.5,"size":10}}}`,
	acpUp + `{"sessionUpdate":"usage_update","used":1e3}}}`,
	acpUp + `{"sessionUpdate":"usage_update","used":-0,"size":99999999999999999999}}}`,
	acpUp + `{"sessionUpdate":"usage_update","used":null,"size":"5"}}}`,
	acpUp + `{"sessionUpdate":"usage_update","cost":{"amount":1e400,"currency":"USD"}}}}`,
	acpUp + `{"sessionUpdate":"usage_update","cost":{"amount":0.5,"currency":"usd"}}}}`,
	acpUp + `{"sessionUpdate":"usage_update","cost":{"amount":null,"currency":"USD","Amount":2}}}}`,
	acpUp + `{"sessionUpdate":"usage_update","cost":null,"used":3}}}`,
	acpUp + `{"sessionUpdate":"usage_update","cost":[]}}}`,
	acpUp + `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"used":"bad"}}}`,
	acpUp + `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"entries":[{"content":"a"}]}}}`,
	acpUp + `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"availableCommands":[{"name":"n"}]}}}`,
	acpUp + `{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"n","input":null},{"name":"m","input":{"hint":null}}]}}}`,
	acpUp + `{"sessionUpdate":"available_commands_update","availableCommands":[]}}}`,
	acpUp + `{"sessionUpdate":"tool_call","toolCallId":"t","locations":[{"path":"/a","line":3},{"path":"/b"}]}}}`,
	acpUp + `{"sessionUpdate":"tool_call","toolCallId":"t","locations":[]}}}`,
	acpUp + `{"sessionUpdate":"tool_call","toolCallId":"t","locations":[{"path":"/a","line":3.5}]}}}`,
	acpUp + `{"sessionUpdate":"tool_call","toolCallId":"t","locations":[{"path":"/a","Line":3}]}}}`,
	acpUp + `{"sessionUpdate":"tool_call","toolCallId":"t","locations":[null]}}}`,
	acpUp + `{"sessionUpdate":"tool_call_update","toolCallId":"u","_meta":{"a":{"toolName":5},"b":"x","c":null}}}}`,
	acpUp + `{"sessionUpdate":"tool_call_update","toolCallId":"u","_meta":{"a":{"toolName":"A","toolName":"B"}}}}}`,
	acpUp + `{"sessionUpdate":"tool_call_update","toolCallId":"u","_meta":{"a":{"TOOLNAME":"A"}}}}}`,
	acpUp + `{"sessionUpdate":"tool_call_update","toolCallId":"u","_meta":{"z":{"toolName":"Z"},"a":{"toolName":"A"}}}}}`,
	acpUp + `{"sessionUpdate":"session_info_update","title":null}}}`,
	acpUp + `{"sessionUpdate":"session_info_update","title":"t","used":2}}}`,
	`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c","title":"t","locations":[{"path":"/x","line":2}]},"options":[{"optionId":"a","name":"A","kind":"allow_once"}]}}`,
	`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c"},"options":[]}}`,
	`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","toolCall":null,"options":null}}`,
	`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","options":[null]}}`,
	`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"toolCall":{"toolCallId":"c","kind":3}}}`,
	`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"toolCall":{"toolCallId":"c"},"Options":[{"optionId":"a"}]}}`,
	`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":[]}`,
	`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"toolCall":"x"}}`,
	`{"jsonrpc":"2.0","id":"p","method":"session/request_permission"}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":2,"thoughtTokens":3,"cachedReadTokens":4,"cachedWriteTokens":5}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":{"inputTokens":0,"outputTokens":0},"_meta":{"quota":{"token_count":{"input_tokens":4}}}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"max_tokens","usage":{"inputTokens":1.5,"outputTokens":2}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":"x","_meta":{"quota":{"token_count":{"input_tokens":4}}}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":null,"_meta":{"quota":null}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","_meta":{"quota":{"token_count":null}}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","_meta":{"quota":{"token_count":{"input_tokens":"4"}}}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","_meta":[]}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","Usage":{"inputTokens":9}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"refusal","usage":{"inputTokens":1,"inputTokens":2}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":5}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","sessionId":"s"}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":null,"sessionId":"s"}}`,
	`{"jsonrpc":"2.0","id":3,"result":null}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"auth\nneeded","data":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}} trailing`,
	`null`, `[]`, `{"method":5}`, `not json`,
}

func TestACPDecoder_AwkwardLinesDecodeCleanly(t *testing.T) {
	acpDecodesCleanly(t, NewACPDecoder(), acpFixtureData(t, acpAwkwardLines, "testdata/*", "../gemini/testdata/acp-*"))
}
