package pi

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// piFixtureCwd is the cwd fixture streams are decoded against.
const piFixtureCwd = "/repo"

func piDecodeAll(data []byte) []adapters.Event {
	d := NewPiDecoder(piFixtureCwd)
	var out []adapters.Event
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		out = append(out, d.Decode(line)...)
	}
	return append(out, d.Flush()...)
}

func piFixtureDirs(t testing.TB) []string {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no pi fixtures found: %v", err)
	}
	return dirs
}

func TestPiDecoder_Fixtures(t *testing.T) {
	for _, dir := range piFixtureDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "stream.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(piDecodeAll(data), "", "  ")
			if err != nil {
				t.Fatalf("events do not marshal: %v", err)
			}
			golden := filepath.Join(dir, "expected.json")
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./adapters/pi -run TestPiDecoder_Fixtures -update)", err)
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
				t.Errorf("decoded events differ from %s; rerun with -update and review the diff", golden)
			}
		})
	}
}

// piSummary reduces events to "type[:detail]" strings for behavioural checks.
func piSummary(evs []adapters.Event) []string {
	var out []string
	for _, e := range evs {
		s := string(e.Type)
		switch e.Type {
		case adapters.EventDone:
			s += ":" + string(e.StopReason)
		case adapters.EventToolCall, adapters.EventToolUpdate:
			s += ":" + e.Tool.ID + ":" + string(e.Tool.Status)
		case adapters.EventError:
			s += ":" + string(e.Error.Code)
			if e.Error.Fatal {
				s += ":fatal"
			}
		case adapters.EventRaw:
			s += ":" + e.Source
		}
		out = append(out, s)
	}
	return out
}

func piFixtureEvents(t *testing.T, name string) []adapters.Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name, "stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return piDecodeAll(data)
}

func TestPiDecoder_Behaviour(t *testing.T) {
	tests := []struct {
		fixture string
		check   func(t *testing.T, evs []adapters.Event)
	}{
		{"text", func(t *testing.T, evs []adapters.Event) {
			if got := piJoin(evs, adapters.EventText); got != "Hi! say hello" {
				t.Errorf("text = %q, want %q", got, "Hi! say hello")
			}
			piWantLast(t, evs, "done:end_turn")
		}},
		{"thinking", func(t *testing.T, evs []adapters.Event) {
			if got := piJoin(evs, adapters.EventThought); !strings.HasPrefix(got, "Let me think about that.") {
				t.Errorf("thought = %q", got)
			}
			if got := piJoin(evs, adapters.EventText); got != "Hello there!" {
				t.Errorf("text = %q", got)
			}
		}},
		{"error", func(t *testing.T, evs []adapters.Event) {
			s := piSummary(evs)
			if !piContains(s, "error:provider") {
				t.Errorf("no provider error in %v", s)
			}
			piWantLast(t, evs, "done:end_turn")
		}},
		{"abort-mid-tool", func(t *testing.T, evs []adapters.Event) {
			s := piSummary(evs)
			for _, want := range []string{"tool_call:call_9:pending", "tool_update:call_9:in_progress", "tool_update:call_9:failed", "done:cancelled"} {
				if !piContains(s, want) {
					t.Errorf("missing %s in %v", want, s)
				}
			}
		}},
		{"json-tool", func(t *testing.T, evs []adapters.Event) {
			if evs[0].Type != adapters.EventSessionInfo || evs[0].Session.AgentSessionID != "01a20043-8e64-7301-beeb-2ce014c82810" {
				t.Errorf("first event = %+v, want session_info", evs[0])
			}
			var done *adapters.ToolCall
			for _, e := range evs {
				if e.Type == adapters.EventToolUpdate && e.Tool.Status == adapters.StatusCompleted {
					done = e.Tool
				}
			}
			if done == nil || len(done.Content) != 1 || done.Content[0].Text != "hello-from-tool\n" {
				t.Errorf("completed tool = %+v", done)
			}
		}},
		{"tool-use", func(t *testing.T, evs []adapters.Event) {
			kinds := map[string]adapters.ToolKind{}
			var locs, diffs int
			for _, e := range evs {
				if e.Type == adapters.EventToolCall {
					kinds[e.Tool.Name] = e.Tool.Kind
					for _, l := range e.Tool.Locations {
						if !path.IsAbs(l.Path) { // recorded on Linux: POSIX paths on any host
							t.Errorf("location %q not absolute", l.Path)
						}
						locs++
					}
					for _, c := range e.Tool.Content {
						if c.Type == adapters.ToolContentDiff && c.Path == "/repo/notes.txt" {
							diffs++
						}
					}
				}
			}
			want := map[string]adapters.ToolKind{"write": "edit", "read": "read", "edit": "edit", "bash": "execute", "grep": "search", "find": "search", "ls": "search"}
			for n, k := range want {
				if kinds[n] != k {
					t.Errorf("kind of %s = %q, want %q", n, kinds[n], k)
				}
			}
			if locs == 0 || diffs != 2 {
				t.Errorf("locations=%d diffs=%d, want >0 and 2", locs, diffs)
			}
			var cost *float64
			for _, e := range evs {
				if e.Type == adapters.EventUsage {
					cost = e.Usage.CostUSD
				}
			}
			if cost == nil || *cost <= 0 {
				t.Errorf("no positive running cost in usage events")
			}
		}},
		{"rate-limit", func(t *testing.T, evs []adapters.Event) {
			want := []string{"raw:pi:response/prompt", "error:rate_limit", "text", "text", "usage", "done:end_turn", "raw:pi:response/get_state"}
			if s := piSummary(evs); strings.Join(s, " ") != strings.Join(want, " ") {
				t.Errorf("events = %v\nwant %v", s, want)
			}
			if msg := piErrorMessages(evs); len(msg) != 1 || msg[0] != "pi: 429 Rate limit reached for mock-model. Please try again in 1s. (pi retries in 2s, attempt 1 of 3)" {
				t.Errorf("retry notice = %q", msg)
			}
			if got := piJoin(evs, adapters.EventText); got != "Answer after the retry." {
				t.Errorf("text = %q", got)
			}
		}},
		{"rate-limit-exhausted", func(t *testing.T, evs []adapters.Event) {
			want := []string{"raw:pi:response/prompt", "error:rate_limit", "error:rate_limit", "error:rate_limit",
				"error:rate_limit:fatal", "done:end_turn", "raw:pi:response/get_state"}
			if s := piSummary(evs); strings.Join(s, " ") != strings.Join(want, " ") {
				t.Errorf("events = %v\nwant %v", s, want)
			}
			if msg := piErrorMessages(evs); len(msg) != 4 || !strings.HasSuffix(msg[2], "(pi retries in 8s, attempt 3 of 3)") ||
				!strings.HasSuffix(msg[3], "(gave up after 3 retries)") {
				t.Errorf("error messages = %q", msg)
			}
		}},
		{"rate-limit-abort", func(t *testing.T, evs []adapters.Event) {
			want := []string{"raw:pi:response/prompt", "error:rate_limit", "done:cancelled", "raw:pi:response/abort", "raw:pi:response/get_state"}
			if s := piSummary(evs); strings.Join(s, " ") != strings.Join(want, " ") {
				t.Errorf("events = %v\nwant %v", s, want)
			}
		}},
		{"rate-limit-no-retry", func(t *testing.T, evs []adapters.Event) {
			// Retries off: the next record (the get_state answer) releases the held end.
			want := []string{"raw:pi:response/prompt", "error:rate_limit", "done:end_turn", "raw:pi:response/get_state"}
			if s := piSummary(evs); strings.Join(s, " ") != strings.Join(want, " ") {
				t.Errorf("events = %v\nwant %v", s, want)
			}
		}},
		{"malformed", func(t *testing.T, evs []adapters.Event) {
			s := piSummary(evs)
			for _, want := range []string{"raw:pi:malformed", "raw:pi:queue_update", "error:extension", "raw:pi:extension_ui_request", "error:protocol", "done:max_tokens"} {
				if !piContains(s, want) {
					t.Errorf("missing %s in %v", want, s)
				}
			}
			if got := piJoin(evs, adapters.EventText); got != "Hello\u2028worldesc \"q\" \\ done" {
				t.Errorf("fallback text = %q", got)
			}
			if got := piJoin(evs, adapters.EventThought); got != "hmm" {
				t.Errorf("fallback thought = %q", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) { tt.check(t, piFixtureEvents(t, tt.fixture)) })
	}
}

func TestPiDecoder_OnResponseConsumes(t *testing.T) {
	var got []PiResponse
	d := NewPiDecoder("/repo")
	d.OnResponse = func(r PiResponse) bool { got = append(got, r); return r.Command == "get_state" }
	evs := d.Decode([]byte(`{"id":"s1","type":"response","command":"get_state","success":true,"data":{"sessionId":"abc"}}`))
	evs = append(evs, d.Decode([]byte(`{"id":"p1","type":"response","command":"prompt","success":true}`))...)
	if len(got) != 2 || got[0].ID != "s1" || string(got[0].Data) != `{"sessionId":"abc"}` || !got[1].Success {
		t.Fatalf("responses = %+v", got)
	}
	if s := piSummary(evs); len(s) != 1 || s[0] != "raw:pi:response/prompt" {
		t.Errorf("events = %v, want only the unconsumed prompt ack", s)
	}
}

func piErrorMessages(evs []adapters.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type == adapters.EventError {
			out = append(out, e.Error.Message)
		}
	}
	return out
}

func piJoin(evs []adapters.Event, typ adapters.EventType) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == typ {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func piContains(s []string, want string) bool {
	for _, x := range s {
		if x == want {
			return true
		}
	}
	return false
}

func piWantLast(t *testing.T, evs []adapters.Event, want string) {
	t.Helper()
	// Trailing rpc acks (raw) may follow the done event.
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == adapters.EventRaw {
			continue
		}
		if got := piSummary(evs[i : i+1])[0]; got != want {
			t.Errorf("last event = %s, want %s", got, want)
		}
		return
	}
	t.Errorf("no events")
}

func TestPiDecoder_RetryHold(t *testing.T) {
	const (
		failedEnd = `{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"503 upstream overloaded"}}`
		agentEnd  = `{"type":"agent_end","messages":[]}`
		okEnd     = `{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop"}}`
		retry     = `{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":500,"errorMessage":"503 upstream overloaded"}`
	)
	tests := []struct {
		name    string
		lines   []string
		pending bool // PendingEnd after the last line
		want    []string
	}{
		{"failed run is held", []string{failedEnd, agentEnd}, true, nil},
		{"pi 1.x willRetry false ends at once", []string{failedEnd, `{"type":"agent_end","messages":[],"willRetry":false}`}, false,
			[]string{"error:provider", "done:end_turn"}},
		{"pi 1.x willRetry true is held", []string{failedEnd, `{"type":"agent_end","messages":[],"willRetry":true}`}, true, nil},
		{"any other record releases", []string{failedEnd, agentEnd, `{"type":"agent_settled"}`}, false,
			[]string{"error:provider", "done:end_turn", "raw:pi:agent_settled"}},
		{"malformed line releases", []string{failedEnd, agentEnd, `oops`}, false,
			[]string{"error:provider", "done:end_turn", "raw:pi:malformed"}},
		{"retry continues the turn", []string{failedEnd, agentEnd, retry, `{"type":"agent_start"}`, okEnd,
			`{"type":"auto_retry_end","success":true,"attempt":1}`, agentEnd}, false,
			[]string{"error:provider", "done:end_turn"}},
		{"retried run fails again and is held", []string{failedEnd, agentEnd, retry, `{"type":"agent_start"}`, failedEnd, agentEnd}, true,
			[]string{"error:provider"}},
		{"cancel during the wait", []string{failedEnd, agentEnd, retry,
			`{"type":"auto_retry_end","success":false,"attempt":1,"finalError":"Retry cancelled"}`}, false,
			[]string{"error:provider", "done:cancelled"}},
		{"stray retry end without a pending run", []string{okEnd, agentEnd,
			`{"type":"auto_retry_end","success":false,"attempt":1,"finalError":"x"}`}, false,
			[]string{"done:end_turn"}},
		{"successful run is not held", []string{okEnd, agentEnd}, false, []string{"done:end_turn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewPiDecoder("/repo")
			var evs []adapters.Event
			for _, l := range tt.lines {
				evs = append(evs, d.Decode([]byte(l))...)
			}
			if d.PendingEnd() != tt.pending {
				t.Errorf("PendingEnd = %v, want %v", d.PendingEnd(), tt.pending)
			}
			if got := piSummary(evs); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("events = %v, want %v", got, tt.want)
			}
			if tt.pending {
				if got := piSummary(d.Flush()); len(got) == 0 || got[len(got)-1] != "done:end_turn" || d.PendingEnd() {
					t.Errorf("Flush = %v, want the held end once", got)
				}
			}
		})
	}
}

func TestPiUnknownRecord_NamesUndocumentedTypes(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{`{"type":"agent_settled","aborted":false}`, "agent_settled"},
		{`not json`, "malformed"},
		{`{"type":"queue_update","steering":[],"followUp":[]}`, ""},
		{`{"type":"compaction_start","reason":"threshold"}`, ""},
		{`{"type":"extension_ui_request","id":"u1","method":"notify"}`, ""},
		{`{"id":"x","type":"response","command":"bash","success":true}`, ""},
		{`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"hi"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var got []string
			for _, e := range NewPiDecoder("/repo").Decode([]byte(tt.line)) {
				if typ := PiUnknownRecord(e); typ != "" {
					got = append(got, typ)
				}
			}
			if want := []string{tt.want}; tt.want == "" && len(got) != 0 || tt.want != "" && strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("unknown records = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzPi(f *testing.F) {
	for _, dir := range piFixtureDirs(f) {
		data, err := os.ReadFile(filepath.Join(dir, "stream.jsonl"))
		if err != nil {
			f.Fatal(err)
		}
		for i, line := range bytes.Split(data, []byte{'\n'}) {
			if len(line) < 4096 || i%7 == 0 {
				f.Add(line)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		d := NewPiDecoder("/repo")
		for _, e := range d.Decode(line) {
			if _, err := json.Marshal(e); err != nil {
				t.Fatalf("event does not marshal: %v", err)
			}
		}
	})
}
