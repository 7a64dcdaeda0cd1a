package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

func TestRun_JSONLGolden(t *testing.T) {
	a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true}, script: steps(
		adapters.Event{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: "s-42", Model: "m"}},
		adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Title: "Read go.mod", Kind: adapters.KindRead, Status: adapters.StatusPending}},
		perm("t1", adapters.KindRead),
		perm("t2", adapters.KindExecute),
		adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: "t1", Status: adapters.StatusCompleted}},
		adapters.Event{Type: adapters.EventText, Text: "The module is hub.", MessageID: "m1"},
		adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{InputTokens: 100, OutputTokens: 5}},
		done(adapters.StopEndTurn),
	)}
	s, out, errOut := runFake(t, context.Background(), a, func(o *Options) { o.Format = FormatJSONL })
	if s.ExitCode != conversation.ExitDenied {
		t.Fatalf("exit %d", s.ExitCode)
	}
	if errOut != "" {
		t.Errorf("jsonl run wrote progress to stderr: %q", errOut)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	var last map[string]any
	for sc.Scan() {
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if last["v"] != float64(1) || last["type"] == nil {
			t.Fatalf("line without envelope: %s", sc.Text())
		}
		if ts, _ := last["ts"].(string); !tsPattern.MatchString(ts) {
			t.Fatalf("line without an RFC 3339 UTC millisecond ts: %s", sc.Text())
		}
	}
	if last["type"] != "summary" || last["agentSessionId"] != "s-42" || last["exitCode"] != float64(6) {
		t.Fatalf("summary line %v", last)
	}
	out = normalizeTS(out)
	golden := filepath.Join("testdata", "golden.jsonl")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if out != string(want) {
		t.Fatalf("jsonl differs from %s:\ngot:\n%s\nwant:\n%s", golden, out, want)
	}
}

var (
	tsPattern = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	tsField   = regexp.MustCompile(`"ts":"[^"]*"`)
)

// normalizeTS replaces every line's time stamp, which the golden file
// does not pin.
func normalizeTS(s string) string { return tsField.ReplaceAllString(s, `"ts":"TS"`) }

func TestRun_JSONLUsageErrorStillEndsWithSummary(t *testing.T) {
	s, out, _ := runFake(t, context.Background(), &fakeAdapter{name: "fake"}, func(o *Options) { o.Format = FormatJSONL; o.Agent = "ghost" })
	if s.ExitCode != conversation.ExitUsage || !strings.HasPrefix(out, `{"v":1,"type":"summary"`) || !strings.Contains(out, `"exitCode":2`) {
		t.Fatalf("exit %d out %s", s.ExitCode, out)
	}
}
