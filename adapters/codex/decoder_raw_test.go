package codex

import (
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// Lines as codex 0.169 app-server sends them with experimentalRawEvents
// (recorded: a write outside the workspace under workspace-write).
const (
	rawCallOut = `{"method":"rawResponseItem/completed","params":{"item":{"arguments":"{\"cmd\":\"touch /etc/probe\"}","call_id":"call_out","name":"exec_command","type":"function_call"},"threadId":"t","turnId":"u"}}`
	rawOutOut  = `{"method":"rawResponseItem/completed","params":{"item":{"call_id":"call_out","output":"Chunk ID: 3d6810\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 17\nOutput:\ntouch: cannot touch '/etc/probe': Read-only file system\n","type":"function_call_output"},"threadId":"t","turnId":"u"}}`
	rawCallIn  = `{"method":"rawResponseItem/completed","params":{"item":{"arguments":"{\"cmd\":\"echo hi\"}","call_id":"call_in","name":"exec_command","type":"function_call"}}}`
	itemInDone = `{"method":"item/completed","params":{"item":{"aggregatedOutput":"hi\n","command":"/bin/bash -lc 'echo hi'","commandActions":[],"cwd":"/w","exitCode":0,"id":"call_in","status":"completed","type":"commandExecution"}}}`
	rawOutIn   = `{"method":"rawResponseItem/completed","params":{"item":{"call_id":"call_in","output":"Chunk ID: 1\nProcess exited with code 0\nOutput:\nhi\n","type":"function_call_output"}}}`
	rawBwrap   = `{"method":"rawResponseItem/completed","params":{"item":{"call_id":"call_b","output":"Process exited with code 1\nOutput:\nbwrap: execvp codex-linux-sandbox: No such file or directory\n","type":"function_call_output"}}}`
	rawCallB   = `{"method":"rawResponseItem/completed","params":{"item":{"arguments":"{\"cmd\":\"ls\"}","call_id":"call_b","name":"exec_command","type":"function_call"}}}`
	rawMessage = `{"method":"rawResponseItem/completed","params":{"item":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}}}`
	rawDone    = `{"method":"rawResponse/completed","params":{"responseId":"resp_0"}}`
)

func TestCodexDecoder_CommandRefusedBySandboxIsAFailedToolCall(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lines  []string
		want   string // "" for no event
		status adapters.ToolStatus
		text   string
	}{
		{"refused write", []string{rawCallOut, rawOutOut}, "tool_call", adapters.StatusFailed, "Read-only file system"},
		{"bwrap could not start", []string{rawCallB, rawBwrap}, "tool_call", adapters.StatusFailed, "execvp codex-linux-sandbox"},
		{"announced command is not repeated", []string{rawCallIn, itemInDone, rawOutIn}, "tool_call", adapters.StatusCompleted, "hi"},
		{"raw messages stay quiet", []string{rawMessage, rawDone}, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewCodexDecoder()
			var evs []adapters.Event
			for _, l := range tc.lines {
				evs = append(evs, d.Decode([]byte(l))...)
			}
			if tc.want == "" {
				if len(evs) != 0 {
					t.Fatalf("events = %s; want none", codexTypes(evs))
				}
				return
			}
			if len(evs) != 1 || string(evs[0].Type) != tc.want {
				t.Fatalf("events = %s; want one %s", codexTypes(evs), tc.want)
			}
			tool := evs[0].Tool
			if tool.Status != tc.status || tool.Kind != adapters.KindExecute {
				t.Errorf("tool = %+v; want status %s, kind execute", tool, tc.status)
			}
			if len(tool.Content) == 0 || !strings.Contains(tool.Content[0].Text, tc.text) {
				t.Errorf("tool content = %+v; want codex's message %q", tool.Content, tc.text)
			}
		})
	}
}
