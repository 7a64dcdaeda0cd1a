package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

// codexFixtureDecoder: exec-* cases are `codex exec --json`, the rest app-server.
func codexFixtureDecoder(name string) func([]byte) []adapters.Event {
	if strings.HasPrefix(name, "exec-") {
		return DecodeCodexExec
	}
	return DecodeCodex
}

func TestCodexFixtures_Golden(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "stream.jsonl"))
	if len(paths) < 10 {
		t.Fatalf("expected codex fixtures, found %d", len(paths))
	}
	for _, path := range paths {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(codexFixtureDecoder(filepath.Base(dir))(data), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join(dir, "expected.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("decoded events differ from %s (run with -update and review the diff)", golden)
			}
		})
	}
}

// codexTypes summarizes events for behaviour assertions.
func codexTypes(evs []adapters.Event) string {
	var b []string
	for _, e := range evs {
		s := string(e.Type)
		switch {
		case e.Type == adapters.EventDone:
			s += ":" + string(e.StopReason)
		case e.Type == adapters.EventError:
			s += ":" + string(e.Error.Code)
			if e.Error.Fatal {
				s += ":fatal"
			}
		case e.Tool != nil:
			s += ":" + string(e.Tool.Status)
		case e.Type == adapters.EventRaw:
			s += ":" + e.Source
		}
		b = append(b, s)
	}
	return strings.Join(b, " ")
}

func codexFixture(t *testing.T, name string) []adapters.Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name, "stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return codexFixtureDecoder(name)(data)
}

func TestCodexDecoder_Behaviour(t *testing.T) {
	tests := []struct {
		name     string
		fixture  string
		contains []string
		check    func(t *testing.T, evs []adapters.Event)
		// noDone: the stream ends without a done (codex exec prints nothing
		// after SIGINT; the adapter that sent it ends the turn cancelled).
		noDone bool
	}{
		{name: "text streams deltas once", fixture: "appserver-text",
			contains: []string{"thought thought thought text text text text", "usage", "done:end_turn"},
			check: func(t *testing.T, evs []adapters.Event) {
				var text string
				for _, e := range evs {
					if e.Type == adapters.EventText {
						text += e.Text
					}
					if e.Type == adapters.EventSessionInfo && e.Session.AgentSessionID == "" {
						t.Error("session_info without thread id")
					}
				}
				if text != "Hello from the mock model." {
					t.Errorf("text = %q", text)
				}
			}},
		{name: "tool call with output", fixture: "appserver-tool",
			contains: []string{"tool_call:in_progress tool_update: tool_update:completed"},
			check: func(t *testing.T, evs []adapters.Event) {
				for _, e := range evs {
					if e.Type == adapters.EventToolUpdate && e.Tool.Status == adapters.StatusCompleted {
						if e.Tool.Content[0].Text != "hello-from-tool\n" {
							t.Errorf("output = %q", e.Tool.Content[0].Text)
						}
						return
					}
				}
				t.Error("no completed tool update")
			}},
		{name: "approval request becomes permission", fixture: "appserver-approval-deny",
			contains: []string{"tool_call:in_progress permission tool_update:failed"},
			check: func(t *testing.T, evs []adapters.Event) {
				for _, e := range evs {
					if e.Type == adapters.EventPermission {
						if e.Permission.Tool.Title != "touch denied.txt" || e.Permission.Tool.Kind != adapters.KindExecute {
							t.Errorf("permission tool = %+v", e.Permission.Tool)
						}
						return
					}
				}
				t.Error("no permission")
			}},
		{name: "file change has diff and absolute path", fixture: "appserver-file-change",
			contains: []string{"tool_call:in_progress tool_update:completed"},
			check: func(t *testing.T, evs []adapters.Event) {
				for _, e := range evs {
					if e.Type == adapters.EventToolCall {
						c := e.Tool.Content[0]
						if c.Type != adapters.ToolContentDiff || c.NewText != "hello\n" || !path.IsAbs(c.Path) || c.OldText != nil { // recorded on Linux
							t.Errorf("diff = %+v", c)
						}
						return
					}
				}
				t.Error("no tool call")
			}},
		{name: "provider error is fatal once", fixture: "appserver-error", contains: []string{"error:provider:fatal done:end_turn"}},
		{name: "rate limit code", fixture: "appserver-rate-limit", contains: []string{"error:rate_limit:fatal done:end_turn"}},
		{name: "interrupt is cancelled", fixture: "appserver-cancel", contains: []string{"tool_call:in_progress", "done:cancelled"}},
		{name: "two turns two dones", fixture: "appserver-two-turns", contains: []string{"done:end_turn", "usage done:end_turn"},
			check: func(t *testing.T, evs []adapters.Event) {
				var usages []int64
				for _, e := range evs {
					if e.Type == adapters.EventUsage {
						usages = append(usages, e.Usage.InputTokens)
					}
				}
				if len(usages) != 2 || usages[1] != usages[0] {
					t.Errorf("per-turn usage = %v, want equal per-turn input tokens", usages)
				}
			}},
		{name: "long line keeps everything", fixture: "appserver-long-line", contains: []string{"text tool_call:in_progress tool_update:completed plan tool_call:in_progress tool_call:failed done:end_turn"},
			check: func(t *testing.T, evs []adapters.Event) {
				if len(evs[1].Text) != 200000 {
					t.Errorf("text len = %d", len(evs[1].Text))
				}
				if n := len(evs[3].Tool.Content[0].Text); n > codexOutputLimit {
					t.Errorf("tool output not bounded: %d", n)
				}
				edit := evs[5].Tool.Content[0]
				if edit.Path != "src/a.go" || *edit.OldText != "package a\nvar x = 1\n\n" || edit.NewText != "package a\nvar x = 2\n\n" {
					t.Errorf("diff = %+v old=%q", edit, *edit.OldText)
				}
			}},
		{name: "exec tool", fixture: "exec-tool", contains: []string{"session_info error:warning thought text tool_call:in_progress tool_update:completed text usage done:end_turn"}},
		{name: "exec error fatal once", fixture: "exec-error", contains: []string{"session_info error:provider error:provider:fatal done:end_turn raw:codexexec:invalid raw:codexexec:something.new"}},
		{name: "exec plan mcp declined usage diff", fixture: "exec-todo", contains: []string{"plan plan tool_call:in_progress tool_update:completed tool_call:failed usage done:end_turn usage done:end_turn"},
			check: func(t *testing.T, evs []adapters.Event) {
				var last *adapters.Usage
				for _, e := range evs {
					if e.Type == adapters.EventUsage {
						last = e.Usage
					}
				}
				if last.InputTokens != 42 || last.OutputTokens != 6 {
					t.Errorf("second turn usage = %+v, want diff of cumulative", last)
				}
			}},
		// Recorded from codex 0.169.0 exec --json against internal/mockllm
		// (adapters/codex/record_test.go, TestRecordExec).
		{name: "exec text and reasoning", fixture: "exec-text", contains: []string{"session_info error:warning thought text usage done:end_turn"},
			check: func(t *testing.T, evs []adapters.Event) {
				if evs[3].Text != "Hello from the mock model." || evs[2].Text != "Thinking about greeting." {
					t.Errorf("thought %q, text %q", evs[2].Text, evs[3].Text)
				}
			}},
		{name: "exec long lines decode fully", fixture: "exec-long-line", contains: []string{"text tool_call:in_progress tool_update:completed text usage done:end_turn"},
			check: func(t *testing.T, evs []adapters.Event) {
				out := evs[4].Tool.Content[0].Text
				if len(out) != codexOutputLimit || strings.Trim(out, "x") != "" {
					t.Errorf("tool output: %d bytes, want the last %d x of a megabyte", len(out), codexOutputLimit)
				}
				if text := evs[5].Text; len(text) != 1_000_000+len(" That was a megabyte.") || !strings.HasSuffix(text, "y That was a megabyte.") {
					t.Errorf("long text: %d bytes", len(text))
				}
			}},
		{name: "exec 429 retries are rate_limit notices", fixture: "exec-rate-limit",
			contains: []string{"error:warning error:rate_limit error:rate_limit text usage done:end_turn"},
			check: func(t *testing.T, evs []adapters.Event) {
				for _, e := range evs {
					if e.Type == adapters.EventError && e.Error.Code == adapters.CodeRateLimit && !strings.Contains(e.Error.Message, "429") {
						t.Errorf("retry notice %q does not name the status", e.Error.Message)
					}
				}
			}},
		{name: "exec 429 until codex gives up is fatal once", fixture: "exec-rate-limit-exhausted",
			contains: []string{"error:rate_limit error:rate_limit error:rate_limit:fatal done:end_turn"}},
		{name: "exec SIGINT mid-tool leaves the command open", fixture: "exec-cancel-mid-tool", noDone: true,
			contains: []string{"text tool_call:in_progress"},
			check: func(t *testing.T, evs []adapters.Event) {
				last := evs[len(evs)-1]
				if last.Type != adapters.EventToolCall || !strings.Contains(last.Tool.Title, "sleep 30") {
					t.Errorf("last event %+v, want the running sleep command", last)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := codexFixture(t, tc.fixture)
			got := codexTypes(evs)
			for _, want := range tc.contains {
				if !strings.Contains(got, want) {
					t.Errorf("events %q\nmissing %q", got, want)
				}
			}
			if evs[len(evs)-1].Type != adapters.EventDone && !strings.HasPrefix(tc.fixture, "exec-error") && !tc.noDone {
				t.Errorf("last event %s, want done", evs[len(evs)-1].Type)
			}
			if tc.check != nil {
				tc.check(t, evs)
			}
		})
	}
}

// A notice that codex retries is codex's to decide: a turn whose only news
// is one ends as codex ends it, not failed, and the notice keeps its cause
// for the fallback watch.
func TestCodexDecoder_RetryNoticeAloneIsNoFailure(t *testing.T) {
	tests := []struct {
		name, stream string
		decode       func([]byte) []adapters.Event
		code         adapters.ErrorCode
	}{
		{"app-server 429", `{"method":"error","params":{"error":{"message":"Reconnecting... 1/5","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":429}},"additionalDetails":"last status: 429"},"willRetry":true}}
{"method":"turn/completed","params":{"turn":{"id":"t","status":"completed"}}}`, DecodeCodex, adapters.CodeRateLimit},
		{"app-server usage limit", `{"method":"error","params":{"error":{"message":"Reconnecting... 2/5","codexErrorInfo":"usageLimitExceeded"},"willRetry":true}}
{"method":"turn/completed","params":{"turn":{"id":"t","status":"completed"}}}`, DecodeCodex, adapters.CodeRateLimit},
		{"app-server 502", `{"method":"error","params":{"error":{"message":"Reconnecting... 1/5","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":502}}},"willRetry":true}}
{"method":"turn/completed","params":{"turn":{"id":"t","status":"completed"}}}`, DecodeCodex, adapters.CodeProvider},
		{"exec 429", `{"type":"error","message":"Reconnecting... 1/2 (exceeded retry limit, last status: 429 Too Many Requests)"}
{"type":"turn.completed","usage":null}`, DecodeCodexExec, adapters.CodeRateLimit},
		{"exec disconnect", `{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: connection reset)"}
{"type":"turn.completed"}`, DecodeCodexExec, adapters.CodeProvider},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := tt.decode([]byte(tt.stream))
			if got := codexTypes(evs); got != "error:"+string(tt.code)+" done:end_turn" {
				t.Fatalf("events %q", got)
			}
			if !evs[0].Error.Retry {
				t.Errorf("notice %+v is not a retry", evs[0].Error)
			}
			turn := adapters.NewTurn()
			turn.Emit(evs...)
			turn.Close()
			if _, err := turn.Run(context.Background(), func(adapters.Event) {}, adapters.TurnRules{}); err != nil {
				t.Errorf("turn failed: %v", err)
			}
		})
	}
}

// A turn that fails after retry notices and tells no cause of its own
// fails with the last retry's cause and code, not a bare "turn failed".
func TestCodexDecoder_FailureAfterRetriesTellsTheirCause(t *testing.T) {
	const failed = `{"method":"turn/completed","params":{"turn":{"id":"t","status":"failed","error":null}}}`
	tests := []struct {
		name, notice string
		code         adapters.ErrorCode
		status       int
	}{
		{"429", `{"message":"Reconnecting... 5/5","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":429}},"additionalDetails":"last status: 429"}`, adapters.CodeRateLimit, 429},
		{"usage limit", `{"message":"Reconnecting... 2/5","codexErrorInfo":"usageLimitExceeded"}`, adapters.CodeRateLimit, 0},
		{"502", `{"message":"Reconnecting... 1/5","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":502}}}`, adapters.CodeProvider, 502},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stream := `{"method":"error","params":{"error":{"message":"Reconnecting... 0/5"},"willRetry":true}}` + "\n" +
				`{"method":"error","params":{"error":` + tt.notice + `,"willRetry":true}}` + "\n" + failed
			evs := DecodeCodex([]byte(stream))
			if got := codexTypes(evs); got != "error:provider error:"+string(tt.code)+" error:"+string(tt.code)+":fatal done:end_turn" {
				t.Fatalf("events %q", got)
			}
			e := evs[2].Error
			if e.Status != tt.status || e.Retry || !strings.Contains(e.Message, strings.SplitN(tt.notice, `"`, 5)[3]) {
				t.Errorf("failure %+v, want the last retry's cause (%s)", e, tt.notice)
			}
		})
	}
}

// An error codex holds no retry for is told once at the turn's end, by
// one rule on both transports: the turn's failure if it fails, a notice
// if codex recovered and completed it (the recorded error's shape).
func TestCodexDecoders_HeldBackErrorOneRule(t *testing.T) {
	const msg = `{\"error\":{\"message\":\"mock: forced error\",\"type\":\"invalid_request_error\",\"code\":\"mock_error\"}}`
	appErr := `{"method":"error","params":{"error":{"message":"` + msg + `","codexErrorInfo":"other","additionalDetails":null},"willRetry":false}}` + "\n"
	execErr := `{"type":"error","message":"` + msg + `"}` + "\n"
	tests := []struct {
		name, appServer, exec string
		want                  string // codexTypes
	}{
		{"completed", appErr + `{"method":"turn/completed","params":{"turn":{"id":"t","status":"completed","error":null}}}`,
			execErr + `{"type":"turn.completed"}`, "error:provider done:end_turn"},
		{"failed", appErr + `{"method":"turn/completed","params":{"turn":{"id":"t","status":"failed","error":null}}}`,
			execErr + `{"type":"turn.failed","error":{"message":""}}`, "error:provider:fatal done:end_turn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := DecodeCodex([]byte(tt.appServer))
			if got := codexTypes(evs); got != tt.want || !strings.Contains(evs[0].Error.Message, "mock: forced error") {
				t.Fatalf("app-server: events %q, first %+v; want %q", got, evs[0].Error, tt.want)
			}
			app, _ := json.Marshal(evs)
			if exec, _ := json.Marshal(DecodeCodexExec([]byte(tt.exec))); string(exec) != string(app) {
				t.Errorf("exec tells\n  %s\nwhere app-server tells\n  %s", exec, app)
			}
		})
	}
}

// exec's items decode as app-server's: a web search, which exec reports
// only once done and without a status, is a completed call, not one the
// turn's end would mark failed.
func TestCodexExecDecoder_ItemsAsAppServers(t *testing.T) {
	for _, tt := range []struct{ exec, appServer string }{
		{`{"type":"item.completed","item":{"id":"w","type":"web_search","query":"go"}}`,
			`{"method":"item/completed","params":{"item":{"id":"w","type":"webSearch","query":"go"}}}`},
		{`{"type":"item.completed","item":{"id":"m","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":{"content":[{"type":"text","text":"found"}]},"status":"completed"}}`,
			`{"method":"item/completed","params":{"item":{"id":"m","type":"mcpToolCall","server":"docs","tool":"search","arguments":{"q":"x"},"result":{"content":[{"type":"text","text":"found"}]},"status":"completed"}}}`},
	} {
		got, _ := json.Marshal(DecodeCodexExec([]byte(tt.exec)))
		want, _ := json.Marshal(DecodeCodex([]byte(tt.appServer)))
		if string(got) != string(want) || !strings.Contains(string(got), `"status":"completed"`) {
			t.Errorf("exec %s\n  = %s\nwant %s", tt.exec, got, want)
		}
	}
}

// codex exec numbers its items from item_0 in each process, and a
// cancelled process never completes its tool items: the next process's
// item_0 is a new tool call. An item.updated is an update, not a new call.
func TestCodexExecDecoder_ToolItemsPerProcess(t *testing.T) {
	cancelled := `{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"sleep 30","aggregated_output":"","exit_code":null,"status":"in_progress"}}
`
	tests := []struct{ name, stream, want string }{
		{"next process reuses an id", cancelled + `{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"web_search","query":"go"}}
`, "tool_call tool_call"},
		{"updated is an update", `{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.updated","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":null,"status":"in_progress"}}
`, "tool_call tool_update"},
	}
	for _, tt := range tests {
		var kinds []string
		for _, e := range DecodeCodexExec([]byte(tt.stream)) {
			if strings.HasPrefix(string(e.Type), "tool") {
				kinds = append(kinds, string(e.Type))
			}
		}
		if got := strings.Join(kinds, " "); got != tt.want {
			t.Errorf("%s: tool events %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A cancelled codex exec process never ended its turn: the error it held
// back is not the next process's, which completes with no notice or, failing
// with no message of its own, with none of the old cause.
func TestCodexExecDecoder_HeldErrorPerProcess(t *testing.T) {
	cancelled := `{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 1/2 (exceeded retry limit, last status: 429 Too Many Requests)"}
{"type":"error","message":"stream disconnected: 429 Too Many Requests"}
`
	for _, tc := range []struct {
		next string
		want []adapters.ErrorCode
	}{
		{`{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}`, nil},
		{`{"type":"turn.failed","error":{}}`, []adapters.ErrorCode{adapters.CodeProvider}},
	} {
		d := NewCodexExecDecoder()
		decodeLines(d, []byte(cancelled))
		var codes []adapters.ErrorCode
		for _, e := range decodeLines(d, []byte("{\"type\":\"turn.started\"}\n"+tc.next+"\n")) {
			if e.Type == adapters.EventError {
				codes = append(codes, e.Error.Code)
			}
		}
		if !slices.Equal(codes, tc.want) {
			t.Errorf("%s: error codes %q, want %q", tc.next, codes, tc.want)
		}
	}
}

func TestCodexDecoder_MalformedIsRaw(t *testing.T) {
	tests := []struct{ line, source string }{
		{`{not json`, "codex:invalid"},
		{`{"method":"brand/new","params":{}}`, "codex:brand/new"},
		{`{"method":"item/started","params":{"item":{"type":"mystery","id":"x"}}}`, "codex:item/started"},
		{`{"id":7,"method":"item/tool/requestUserInput","params":{}}`, "codex:request/item/tool/requestUserInput"},
		{`{"method":"item/agentMessage/delta","params":"oops"}`, "codex:item/agentMessage/delta"},
	}
	for _, tc := range tests {
		evs := NewCodexDecoder().Decode([]byte(tc.line))
		if len(evs) != 1 || evs[0].Type != adapters.EventRaw || evs[0].Source != tc.source || !json.Valid(evs[0].Raw) {
			t.Errorf("%s -> %+v, want raw %s", tc.line, evs, tc.source)
		}
	}
}

func TestCodexDecision_Mapping(t *testing.T) {
	tests := []struct {
		d    adapters.PermissionDecision
		want string
	}{
		{adapters.PermissionDecision{Kind: adapters.AllowOnce}, "accept"},
		{adapters.PermissionDecision{Kind: adapters.AllowAlways}, "acceptForSession"},
		{adapters.PermissionDecision{Kind: adapters.RejectOnce}, "decline"},
		{adapters.PermissionDecision{Kind: adapters.RejectAlways}, "decline"},
		{adapters.PermissionDecision{Cancelled: true, Kind: adapters.AllowOnce}, "cancel"},
	}
	for _, tc := range tests {
		if got := CodexDecision(tc.d); got != tc.want {
			t.Errorf("%+v -> %s, want %s", tc.d, got, tc.want)
		}
	}
	if opts := CodexPermissionOptions([]any{"accept", "cancel"}); len(opts) != 2 || opts[1].ID != "decline" {
		t.Errorf("options without session = %+v", opts)
	}
}

func FuzzCodex(f *testing.F) {
	codexSeed(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		codexDecodesCleanly(t, data)
	})
}

// codexDecodesCleanly decodes data line by line with both codex decoders:
// no line may panic or yield events that do not marshal.
func codexDecodesCleanly(t *testing.T, data []byte) {
	t.Helper()
	app, exec := NewCodexDecoder(), NewCodexExecDecoder()
	app.Cwd = "/w"
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		if _, err := json.Marshal(app.Decode(l)); err != nil {
			t.Fatalf("app-server events of %q not marshalable: %v", l, err)
		}
		if _, err := json.Marshal(exec.Decode(l)); err != nil {
			t.Fatalf("exec events of %q not marshalable: %v", l, err)
		}
	}
}

func TestCodexDecoder_ScannerMatchesEncodingJSON(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "stream.jsonl"))
	extra := []string{
		`{"Method":"item/agentMessage/delta","params":{"itemId":"a","delta":"x"}}`,
		`{"method":"item/agentMessage/delta","params":{"itemId":"a","ITEMID":"b","delta":"x"}}`,
		`{"method":"item/agentMessage/delta","params":{"itemId":"a","delta":"x","delta":"y"}}`,
		`{"method":"item/agentMessage/delta","params":{"\u0069temId":"a","delta":"\ud83d\ude00 \ud800 \u00e9"}}`,
		`{"method":"item/agentMessage/delta","params":{"itemId":"a","delta":"bad ÿ utf8"}}`,
		`{"method":"item/agentMessage/delta","params":null}`,
		`{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"c","exitCode":1.5}}}`,
		`{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"c","exitCode":3,"aggregatedOutput":"o","commandActions":[{"command":"ls"}]}}}`,
		`{"method":"item/completed","params":{"item":{"type":"mcpToolCall","id":"m","server":"s","tool":"t","result":{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AA","mimeType":"image/png"}]}}}}`,
		`{"method":"thread/tokenUsage/updated","params":{"tokenUsage":{"total":{"inputTokens":5},"last":{"inputTokens":2.0}}}}`,
		`{"method":"turn/completed","params":{"turn":{"status":"failed","error":{"message":"boom"}}}}`,
		`{"id":3,"result":{"thread":{"id":"t","model":7}}}`,
		`{"id":3,"result":{"thread":{"id":"t","name":"n"},"model":"m"}}`,
		`{"method":5}`, `null`, `[]`, `{"method":"x"} trailing`,
		`{"type":"item.completed","item":{"id":"i","type":"todo_list","items":[{"text":"a","completed":true},{"text":"b","completed":"no"}]}}`,
		`{"type":"item.completed","item":{"id":"i","type":"todo_list","items":[{"text":"a","completed":false}]}}`,
		`{"type":"item.completed","item":null}`,
		`{"type":"turn.completed","usage":{"input_tokens":1e3}}`,
		`{"type":"turn.failed","error":{"message":"x"}}`,
		`{"type":"item.completed","item":{"id":"f","type":"file_change","changes":[{"path":"a.go","kind":"add"},{"path":"b","kind":"update"}],"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"f","type":"file_change","changes":[{"path":"a","kind":{"type":"add"}}]}}`,
		`{"type":"item.completed","item":{"id":"f","type":"file_change","changes":[{"PATH":"a","kind":"delete"}]}}`,
		`{"type":"item.completed","item":{"id":"f","type":"file_change","changes":[{"path":"a"},{"path":5,"kind":"add"}]}}`,
		`{"type":"item.completed","item":{"id":"f","type":"file_change","changes":[null,{"path":"x\u00e9","kind":"delete"}]}}`,
		`{"type":"item.completed","item":{"id":"f","type":"file_change","changes":{"path":"a"}}}`,
		`{"type":"item.completed","item":{"id":"f","type":"file_change","changes":[]}}`,
		`{"type":"item.completed","item":{"id":"m","type":"mcp_tool_call","server":"s","tool":"t","result":{"content":[{"type":"text","text":"hi"},{"type":"text","text":7}]}}}`,
		`{"type":"item.completed","item":{"id":"i","type":"todo_list","items":[{"TEXT":"a"}]}}`,
	}
	data := []byte(strings.Join(extra, "\n"))
	for _, p := range paths {
		d, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data = append(append(data, '\n'), d...)
	}
	codexDecodesCleanly(t, data)
}

func codexSeed(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "stream.jsonl"))
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			if len(l) < 4096 {
				f.Add(l)
			}
		}
	}
}

func FuzzCodexExec(f *testing.F) {
	codexSeed(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewCodexExecDecoder()
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			_ = d.Decode(l)
		}
	})
}

// codex's file change approval names no file, only its item: hub judges
// the files of that item's item/started (and the root it asks to write
// under), not an edit of nothing.
func TestCodexDecoder_FileApprovalNamesItsFiles(t *testing.T) {
	home, _ := os.UserHomeDir()
	ws := t.TempDir()
	keys := filepath.Join(home, ".ssh", "authorized_keys")
	allowAll, err := permission.New(config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "*", Decision: "allow"}}})
	if err != nil {
		t.Fatal(err)
	}
	started := func(change map[string]any) string {
		b, _ := json.Marshal(map[string]any{"method": "item/started", "params": map[string]any{"item": map[string]any{
			"type": "fileChange", "id": "call_1", "changes": []any{change}, "status": "inProgress"}}})
		return string(b)
	}
	approval := func(grantRoot string) string {
		b, _ := json.Marshal(map[string]any{"id": 0, "method": CodexMethodFileApproval, "params": map[string]any{
			"threadId": "t", "turnId": "u", "itemId": "call_1", "startedAtMs": 1, "grantRoot": grantRoot}})
		return string(b)
	}
	tests := []struct {
		name  string
		lines []string
		hard  bool
	}{
		{"a new authorized_keys", []string{started(map[string]any{"path": keys, "kind": map[string]any{"type": "add"}, "diff": "k\n"}), approval("")}, true},
		{"a move onto it", []string{started(map[string]any{"path": filepath.Join(ws, "k"), "kind": map[string]any{"type": "update", "move_path": keys}, "diff": ""}), approval("")}, true},
		{"a grant root in it", []string{started(map[string]any{"path": "a.txt", "kind": map[string]any{"type": "add"}, "diff": "a\n"}), approval(filepath.Join(home, ".ssh"))}, true},
		{"a workspace file", []string{started(map[string]any{"path": "a.txt", "kind": map[string]any{"type": "add"}, "diff": "a\n"}), approval("")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewCodexDecoder()
			d.Cwd = ws
			var evs []adapters.Event
			for _, l := range tt.lines {
				evs = d.Decode([]byte(l))
			}
			if len(evs) != 1 || evs[0].Permission == nil {
				t.Fatalf("events %+v, want one permission", evs)
			}
			tool := evs[0].Permission.Tool
			if v, _ := allowAll.Decide(permission.RequestOf(tool, ws)); v.Hard != tt.hard {
				t.Errorf("got %+v, want hard deny %v (locations %v)", v, tt.hard, tool.Locations)
			}
		})
	}
}

// An approval of input to a running terminal (kind writeStdin) is asked
// every time: hub cannot tell where that terminal's shell stands, nor what
// earlier input set up, so no rule or "always" answer may cover it.
func TestCodexDecoder_StdinApprovalAlwaysAsked(t *testing.T) {
	tests := []struct {
		kind string
		must bool
	}{
		{"writeStdin", true},
		{"command", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			b, _ := json.Marshal(map[string]any{"id": 0, "method": CodexMethodCommandApproval, "params": map[string]any{
				"threadId": "t", "turnId": "u", "itemId": "call_1", "startedAtMs": 1, "kind": tt.kind,
				"command": "cat k >> authorized_keys", "cwd": "/w"}})
			evs := NewCodexDecoder().Decode(b)
			if len(evs) != 1 || evs[0].Permission == nil {
				t.Fatalf("events %+v, want one permission", evs)
			}
			if must := evs[0].Permission.MustAsk != ""; must != tt.must {
				t.Errorf("must ask %v, want %v", must, tt.must)
			}
		})
	}
}

// A file change approval whose item/started hub has not seen (it comes
// later, or never) names no file: no rule or "always" may cover it, as an
// always for one such change would cover every later one, whatever it writes.
func TestCodexDecoder_FileApprovalWithoutItsFilesAlwaysAsked(t *testing.T) {
	started := func(id string, completed bool) string {
		method := map[bool]string{false: "item/started", true: "item/completed"}[completed]
		b, _ := json.Marshal(map[string]any{"method": method, "params": map[string]any{"item": map[string]any{
			"type": "fileChange", "id": id, "changes": []any{map[string]any{"path": "a.txt", "kind": map[string]any{"type": "add"}, "diff": "a\n"}},
			"status": "inProgress"}}})
		return string(b)
	}
	approval, _ := json.Marshal(map[string]any{"id": 0, "method": CodexMethodFileApproval, "params": map[string]any{
		"threadId": "t", "turnId": "u", "itemId": "call_1", "startedAtMs": 1}})
	tests := []struct {
		name  string
		lines []string
		must  bool
	}{
		{"no item/started", nil, true},
		{"another item's", []string{started("call_2", false)}, true},
		{"its item completed", []string{started("call_1", false), started("call_1", true)}, true},
		{"its item/started first", []string{started("call_1", false)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewCodexDecoder()
			d.Cwd = t.TempDir()
			for _, l := range tt.lines {
				d.Decode([]byte(l))
			}
			evs := d.Decode(approval)
			if len(evs) != 1 || evs[0].Permission == nil {
				t.Fatalf("events %+v, want one permission", evs)
			}
			if must := evs[0].Permission.MustAsk != ""; must != tt.must {
				t.Errorf("must ask %v, want %v", must, tt.must)
			}
		})
	}
}
