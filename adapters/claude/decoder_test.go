package claude

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// claudeGolden renders events as stable, reviewable JSON; strings longer
// than 512 bytes are replaced by their length and hash.
func claudeGolden(t *testing.T, events []adapters.Event) []byte {
	t.Helper()
	b, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(claudeShorten(v), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func claudeShorten(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > 512 {
			sum := sha256.Sum256([]byte(x))
			return x[:64] + "…(" + strconv.Itoa(len(x)) + " bytes, sha256 " + hex.EncodeToString(sum[:8]) + ")"
		}
	case []any:
		for i := range x {
			x[i] = claudeShorten(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = claudeShorten(x[k])
		}
	}
	return v
}

func TestDecodeClaude_Fixtures(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/stream.jsonl")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no claude fixtures: %v", err)
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := claudeGolden(t, DecodeClaude(data))
			golden := filepath.Join(dir, "expected.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./adapters/claude -run Claude -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("events differ from %s (rerun with -update and review the diff):\n%s", golden, got)
			}
		})
	}
}

func claudeFixture(t *testing.T, name string) []adapters.Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name, "stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return DecodeClaude(data)
}

func claudeTypes(events []adapters.Event) string {
	var s []string
	for _, e := range events {
		s = append(s, string(e.Type))
	}
	return strings.Join(s, ",")
}

// An api_retry notice is claude's to decide: a turn whose only news is one
// ends as its result says, not failed, and the notice keeps its cause
// for the fallback watch.
func TestDecodeClaude_RetryNoticeAloneIsNoFailure(t *testing.T) {
	for _, tt := range []struct {
		status int
		code   adapters.ErrorCode
	}{{429, adapters.CodeRateLimit}, {529, adapters.CodeProvider}, {0, adapters.CodeProvider}} {
		evs := DecodeClaude([]byte(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"error_status":` + strconv.Itoa(tt.status) + `,"error":"x"}
{"type":"result","subtype":"success","is_error":false,"result":""}`))
		if len(evs) != 2 || evs[0].Error == nil || !evs[0].Error.Retry || evs[0].Error.Code != tt.code {
			t.Fatalf("status %d: events %+v, want a %s retry notice and done", tt.status, evs, tt.code)
		}
		turn := adapters.NewTurn()
		turn.Emit(evs...)
		turn.Close()
		if _, err := turn.Run(context.Background(), func(adapters.Event) {}, adapters.TurnRules{}); err != nil {
			t.Errorf("status %d: turn failed: %v", tt.status, err)
		}
	}
}

// The golden files pin details; these assert the behaviour that matters.
func TestDecodeClaude_Behaviour(t *testing.T) {
	tests := []struct {
		name, fixture string
		check         func(t *testing.T, ev []adapters.Event)
	}{
		{"partials are not emitted twice", "tool-partial", func(t *testing.T, ev []adapters.Event) {
			var text, thought strings.Builder
			calls := 0
			for _, e := range ev {
				switch e.Type {
				case adapters.EventText:
					text.WriteString(e.Text)
				case adapters.EventThought:
					thought.WriteString(e.Text)
				case adapters.EventToolCall:
					calls++
					if e.Tool.Kind != adapters.KindExecute || !strings.Contains(string(e.Tool.RawInput), "hello-from-tool") {
						t.Errorf("tool call = %+v", e.Tool)
					}
				}
			}
			if text.String() != "Running a command now.The command printed hello-from-tool. Done." {
				t.Errorf("text = %q", text.String())
			}
			if thought.String() != "I should run a shell command." || calls != 1 {
				t.Errorf("thought = %q, calls = %d", thought.String(), calls)
			}
		}},
		{"no partials: assistant blocks emitted", "tool-nopartial", func(t *testing.T, ev []adapters.Event) {
			want := "session_info,commands,thought,text,tool_call,tool_update,text,usage,done"
			if got := claudeTypes(ev); got != want {
				t.Errorf("types = %s, want %s", got, want)
			}
			u := ev[5].Tool
			if u.Status != adapters.StatusCompleted || u.Content[0].Text != "hello-from-tool" || !strings.Contains(string(u.RawOutput), "stdout") {
				t.Errorf("tool update = %+v", u)
			}
		}},
		{"api error is fatal and not echoed as text", "api-error", func(t *testing.T, ev []adapters.Event) {
			if got := claudeTypes(ev); got != "session_info,commands,usage,error,done" {
				t.Fatalf("types = %s", got)
			}
			if e := ev[3].Error; !e.Fatal || !strings.Contains(e.Message, "400 mock: forced error") {
				t.Errorf("error = %+v", e)
			}
		}},
		{"interrupt ends cancelled", "interrupt", func(t *testing.T, ev []adapters.Event) {
			done := ev[len(ev)-1]
			for _, e := range ev {
				if e.Type == adapters.EventDone {
					done = e
					break
				}
			}
			if done.StopReason != adapters.StopCancelled {
				t.Errorf("stop = %s", done.StopReason)
			}
		}},
		{"permission request carries the tool", "permission", func(t *testing.T, ev []adapters.Event) {
			var p *adapters.Event
			for i := range ev {
				if ev[i].Type == adapters.EventPermission {
					p = &ev[i]
				}
			}
			if p == nil || p.Permission.Tool.ID != "toolu_1" || p.Permission.Tool.Kind != adapters.KindExecute {
				t.Fatalf("permission = %+v", p)
			}
			req, ok := ParseClaudeControlRequest(p.Raw)
			if !ok || req.RequestID != "req_perm_1" || req.ToolName != "Bash" {
				t.Errorf("request = %+v", req)
			}
		}},
		{"todo becomes plan, edits carry diffs", "edit-plan", func(t *testing.T, ev []adapters.Event) {
			if ev[2].Type != adapters.EventPlan || len(ev[2].Plan) != 3 || ev[2].Plan[1].Status != "in_progress" {
				t.Fatalf("plan = %+v", ev[2])
			}
			kinds := map[string]adapters.ToolKind{}
			for _, e := range ev {
				if e.Type == adapters.EventToolCall {
					kinds[e.Tool.Name] = e.Tool.Kind
					if e.Tool.Name == "Edit" && (e.Tool.Content[0].Type != adapters.ToolContentDiff || *e.Tool.Content[0].OldText != "a := 1" || e.Tool.Locations[0].Path != "/repo/main.go") {
						t.Errorf("edit = %+v", e.Tool)
					}
				}
				if e.Type == adapters.EventToolUpdate && e.Tool.ID == "toolu_t" {
					t.Error("TodoWrite result leaked as tool update")
				}
			}
			want := map[string]adapters.ToolKind{"Read": "read", "Edit": "edit", "Write": "edit", "Grep": "search", "WebFetch": "fetch", "Task": "think", "mcp__github__get_issue": "other"}
			for n, k := range want {
				if kinds[n] != k {
					t.Errorf("%s kind = %q, want %q", n, kinds[n], k)
				}
			}
		}},
		{"limits map to stop reasons", "limits", func(t *testing.T, ev []adapters.Event) {
			var stops []string
			codes := map[string]int{}
			for _, e := range ev {
				if e.Type == adapters.EventDone {
					stops = append(stops, string(e.StopReason))
				}
				if e.Type == adapters.EventError {
					codes[string(e.Error.Code)]++
				}
			}
			if got := strings.Join(stops, ","); got != "max_turn_requests,max_tokens,end_turn,end_turn" {
				t.Errorf("stops = %s", got)
			}
			if codes["rate_limit"] != 2 || codes["auth"] != 1 || codes["agent"] != 1 {
				t.Errorf("error codes = %v", codes)
			}
		}},
		{"unknown and malformed become raw", "unknown", func(t *testing.T, ev []adapters.Event) {
			sources := map[string]bool{}
			calls := 0
			for _, e := range ev {
				if e.Type == adapters.EventRaw {
					sources[e.Source] = true
				}
				if e.Type == adapters.EventToolCall {
					calls++
				}
			}
			for _, s := range []string{"claude:malformed", "claude:brand_new_thing", "claude:system/hook_started", "claude:stream_event", "claude:assistant"} {
				if !sources[s] {
					t.Errorf("missing raw %s in %v", s, sources)
				}
			}
			if calls != 1 {
				t.Errorf("subagent partial tool calls = %d, want 1", calls)
			}
		}},
		// rec-rate-limit*: recorded from claude 2.1.330 against the Anthropic
		// mock behind a 429 rate_limit_error with retry-after: 1
		// (adapters/claude/record_test.go).
		{"real 429 retries are non-fatal rate_limit notices", "rec-rate-limit", func(t *testing.T, ev []adapters.Event) {
			if got := claudeTypes(ev); got != "session_info,commands,error,error,text,text,text,usage,usage,done" {
				t.Fatalf("types = %s", got)
			}
			for i, e := range ev[2:4] {
				if e.Error.Fatal || e.Error.Code != adapters.CodeRateLimit || !strings.Contains(e.Error.Message, "HTTP 429, retrying (attempt "+strconv.Itoa(i+1)+" of 10)") {
					t.Errorf("retry notice %d = %+v", i+1, e.Error)
				}
			}
			if done := ev[len(ev)-1]; done.StopReason != adapters.StopEndTurn {
				t.Errorf("stop = %s", done.StopReason)
			}
		}},
		{"real 429 until claude gives up is fatal once", "rec-rate-limit-exhausted", func(t *testing.T, ev []adapters.Event) {
			if got := claudeTypes(ev); got != "session_info,commands,error,error,usage,error,done" {
				t.Fatalf("types = %s (the API error message must not be echoed as text)", got)
			}
			for _, e := range ev[2:4] {
				if e.Error.Fatal || e.Error.Code != adapters.CodeRateLimit {
					t.Errorf("retry notice = %+v", e.Error)
				}
			}
			if e := ev[5].Error; !e.Fatal || e.Code != adapters.CodeRateLimit || !strings.Contains(e.Message, "429") {
				t.Errorf("final error = %+v", e)
			}
		}},
		// rec-max-*: recorded from claude 2.1.330 against the Anthropic mock
		// (adapters/claude/record_test.go).
		{"real --max-turns 1 with a tool call ends max_turn_requests", "rec-max-turns", func(t *testing.T, ev []adapters.Event) {
			if got := claudeTypes(ev); got != "session_info,commands,text,text,text,tool_call,usage,tool_update,usage,done" {
				t.Fatalf("types = %s (hitting the turn limit is no error)", got)
			}
			if done := ev[len(ev)-1]; done.StopReason != adapters.StopMaxTurnRequests {
				t.Errorf("stop = %s", done.StopReason)
			}
		}},
		{"real max_tokens cut ends max_tokens once claude stops resuming", "rec-max-tokens", func(t *testing.T, ev []adapters.Event) {
			var text strings.Builder
			for _, e := range ev {
				switch e.Type {
				case adapters.EventText:
					text.WriteString(e.Text)
				case adapters.EventError:
					t.Errorf("error = %+v (the cut is a stop reason, not a failure)", e.Error)
				}
			}
			if want := "This answer is cut off in the middle and again and again and again"; text.String() != want {
				t.Errorf("text = %q, want %q (claude's synthetic API error must not be echoed)", text.String(), want)
			}
			if done := ev[len(ev)-1]; done.Type != adapters.EventDone || done.StopReason != adapters.StopMaxTokens {
				t.Errorf("last event = %s stop %s", done.Type, done.StopReason)
			}
		}},
		// not-logged-in: recorded from claude 2.1.330 with an empty HOME, no
		// ANTHROPIC_API_KEY and no network (see its README.md).
		{"real not logged in is one fatal auth error naming the fix", "not-logged-in", func(t *testing.T, ev []adapters.Event) {
			if got := claudeTypes(ev); got != "session_info,commands,usage,error,done" {
				t.Fatalf("types = %s (the API error message must not be echoed as text)", got)
			}
			e := ev[3].Error
			if !e.Fatal || e.Code != adapters.CodeAuth || !strings.Contains(e.Message, "ANTHROPIC_API_KEY") || strings.Contains(e.Message, "\n") {
				t.Errorf("error = %+v", e)
			}
			if !strings.Contains(e.Detail, "Not logged in · Please run /login") {
				t.Errorf("detail %q lost claude's own text", e.Detail)
			}
		}},
		{"long line decodes whole", "long-line", func(t *testing.T, ev []adapters.Event) {
			for _, e := range ev {
				if e.Type == adapters.EventToolUpdate && len(e.Tool.Content[0].Text) < 1<<20-64 {
					t.Errorf("long output truncated to %d", len(e.Tool.Content[0].Text))
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, claudeFixture(t, tt.fixture)) })
	}
}

func TestClaudeDecoder_SessionInfoOnlyOnChange(t *testing.T) {
	ev := claudeFixture(t, "interrupt")
	n := 0
	for _, e := range ev {
		if e.Type == adapters.EventSessionInfo || e.Type == adapters.EventCommands {
			n++
		}
	}
	if n != 2 {
		t.Errorf("session_info+commands events = %d, want 2 (repeated init lines are silent)", n)
	}
}

// Each model request's usage arrives at its message_delta, before the
// turn's result, so hub's --max-tokens and --max-cost can stop a looping
// turn: message_start's counts updated by the delta's.
func TestDecodeClaude_RequestUsageBeforeTheResult(t *testing.T) {
	start := `{"type":"stream_event","parent_tool_use_id":%P%,"event":{"type":"message_start","message":{"id":"m","usage":{"input_tokens":42,"output_tokens":1,"cache_read_input_tokens":5}}}}`
	delta := `{"type":"stream_event","parent_tool_use_id":%P%,"event":{"type":"message_delta","usage":{"output_tokens":17}}}`
	main, sub := strings.NewReplacer("%P%", "null"), strings.NewReplacer("%P%", `"toolu_1"`)
	for _, tc := range []struct {
		name  string
		lines []string
		want  []adapters.Usage
	}{
		{"one request", []string{main.Replace(start), main.Replace(delta)},
			[]adapters.Usage{{InputTokens: 42, OutputTokens: 17, CacheReadTokens: 5, ContextUsed: 64, PerRequest: true}}},
		{"a subagent's request between", []string{main.Replace(start), sub.Replace(start), sub.Replace(delta), main.Replace(delta)},
			[]adapters.Usage{{InputTokens: 42, OutputTokens: 17, CacheReadTokens: 5, ContextUsed: 64, PerRequest: true},
				{InputTokens: 42, OutputTokens: 17, CacheReadTokens: 5, ContextUsed: 64, PerRequest: true}}},
		{"a delta without a start", []string{main.Replace(delta)},
			[]adapters.Usage{{OutputTokens: 17, ContextUsed: 17, PerRequest: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []adapters.Usage
			for _, e := range DecodeClaude([]byte(strings.Join(tc.lines, "\n"))) {
				if e.Type == adapters.EventUsage {
					got = append(got, *e.Usage)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("usage events = %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("usage %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func FuzzClaude(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*/stream.jsonl")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	big := strings.Repeat("x", 16<<10)
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"` + big + `"}]},"tool_use_result":{"stdout":"a"}}`))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Write","input":{"file_path":"/a","content":"` + big + `"}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		evs := DecodeClaude(data)
		for _, e := range evs {
			if e.Type == "" {
				t.Fatal("event without type")
			}
		}
		if _, err := json.Marshal(evs); err != nil {
			t.Fatalf("events do not marshal: %v", err)
		}
	})
}

// Padding every fixture line with a 16 KiB member hub does not read must not
// change the events.
func TestDecodeClaude_LargePathMatches(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*/stream.jsonl")
	pad := `"zz_pad":"` + strings.Repeat(`a\"\u00e9\n`, 2<<10) + `",`
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var padded []byte
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) > 0 && line[0] == '{' && len(line) > 1 && line[1] == '"' {
				line = append([]byte("{"+pad), line[1:]...)
			}
			padded = append(append(padded, line...), '\n')
		}
		want, _ := json.Marshal(claudeNoRaw(DecodeClaude(data)))
		got, _ := json.Marshal(claudeNoRaw(DecodeClaude(padded)))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: large path differs:\n got %.2000s\nwant %.2000s", p, got, want)
		}
	}
}

// claudeNoRaw drops the Raw copies of whole lines, which padding changes.
func claudeNoRaw(evs []adapters.Event) []adapters.Event {
	for i := range evs {
		evs[i].Raw = nil
	}
	return evs
}

// Control records reach the adapter as typed values, never as raw events.
func TestDecodeClaude_ControlRecordsAreNotEvents(t *testing.T) {
	d := NewClaudeDecoder()
	var got []ClaudeControl
	d.Control = func(c ClaudeControl) { got = append(got, c) }
	evs := d.Decode([]byte(`{"type":"control_response","response":{"subtype":"success","request_id":"req_1"}}`))
	evs = append(evs, d.Decode([]byte(`{"type":"control_request","request_id":"r2","request":{"subtype":"hook_callback"}}`))...)
	if len(evs) != 0 {
		t.Fatalf("control records became events: %+v", evs)
	}
	if len(got) != 2 || got[0].Response == nil || got[1].Request == nil || got[1].Request.RequestID != "r2" || got[1].Request.Subtype != "hook_callback" {
		t.Fatalf("control records %+v", got)
	}
}
