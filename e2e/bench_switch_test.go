//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/trace"
)

// The switch figure (make bench; HUB_BENCH_AGENTS=1): a hub acp session on
// claude is switched to codex once claude is up, and after a pause the
// user prompts. codex starts the moment the option changes, so that first
// text is as fast as a warm first prompt in a session that began on codex.
// It prints figures; it asserts nothing about them.

// switchRun is one switch, timed from the set_config_option request: its
// answer, codex's start span beginning and its "agent started" hop; then
// the prompt -> first text and the turn's "agent ready" hop.
type switchRun struct{ answered, began, started, firstText, agentReady time.Duration }

func TestBench_SwitchAgent(t *testing.T) {
	if os.Getenv("HUB_BENCH_AGENTS") != "1" {
		t.Skip("make bench runs it (HUB_BENCH_AGENTS=1)")
	}
	codexMock := func(t *testing.T) *mockllm.ResponsesServer {
		m := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "Hello from the mock."}, mockllm.ResponsesTurn{Text: "Hello again."})
		t.Cleanup(m.Close)
		return m
	}
	both := hubBenchRun(func(t *testing.T, _ string) (string, func() []time.Time) {
		am := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Hello from claude."})
		t.Cleanup(am.Close)
		m := codexMock(t)
		codex := strings.TrimPrefix(codexPlainConfig(t, m), "default_agent = \"codex\"\n")
		return claudeHubConfig(t, am) + "\n" + codex, m.Served
	})
	codexOnly := hubBenchRun(func(t *testing.T, _ string) (string, func() []time.Time) {
		m := codexMock(t)
		return codexPlainConfig(t, m), m.Served
	})
	var switched []switchRun
	var plain []benchRun
	for range runsWanted() {
		switched = append(switched, measureSwitch(t, both(t)))
		plain = append(plain, measure(t, codexOnly(t)))
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	sw := func(f func(switchRun) time.Duration) string { return ms(median(switched, f)) }
	pl := func(f func(benchRun) time.Duration) string { return ms(median(plain, f)) }
	fmt.Printf("\nswitch agent: a session on claude set to codex, then after a %s pause a prompt; medians of %d; started and agent ready from hub's trace (make bench)\n", benchPause, runsWanted())
	fmt.Println("| codex in | option set -> answered | option set -> codex's start began | option set -> codex started | prompt -> first text | prompt -> agent ready |")
	fmt.Println("|---|---|---|---|---|---|")
	fmt.Printf("| a session switched from claude | %s | %s | %s | %s | %s |\n",
		sw(func(r switchRun) time.Duration { return r.answered }), sw(func(r switchRun) time.Duration { return r.began }),
		sw(func(r switchRun) time.Duration { return r.started }), sw(func(r switchRun) time.Duration { return r.firstText }),
		sw(func(r switchRun) time.Duration { return r.agentReady }))
	fmt.Printf("| a new session on codex (start began at session/new) | - | - | %s after it began | %s | %s |\n",
		pl(func(r benchRun) time.Duration { return r.hops["start|"+trace.Started] }), pl(func(r benchRun) time.Duration { return r.prompt[0].firstText }),
		pl(func(r benchRun) time.Duration { return r.hops["turn 1|"+trace.AgentReady] }))
}

// measureSwitch opens a session on claude, waits until claude reported its
// options (it is up), switches to codex after a pause and prompts after
// another.
func measureSwitch(t *testing.T, su benchSetup) switchRun {
	t.Helper()
	p, sid := openSession(t, su)
	select {
	case <-p.surfaced:
	case <-time.After(3 * time.Minute):
		t.Fatal("claude reported no options: it did not start")
	}
	time.Sleep(benchPause) // the measured user choosing another agent, not a synchronisation
	set := time.Now()
	res := p.call(t, "session/set_config_option", map[string]any{"sessionId": sid, "configId": "agent", "value": "codex"})
	r := switchRun{answered: time.Since(set)}
	if !strings.Contains(string(res), "configOptions") {
		t.Fatalf("switching to codex answered %s", res)
	}
	time.Sleep(benchPause) // the user typing
	r.firstText = p.prompt(t, sid, "codex").firstText
	starts := startSpans(t, su.log)
	if len(starts) != 2 {
		t.Fatalf("hub's trace has %d agent starts; want claude's and codex's", len(starts))
	}
	codex := starts[1]
	at, ok := codex.hops[trace.Started]
	if !ok {
		t.Fatalf("hub's trace has no %q for codex: %v", trace.Started, codex.hops)
	}
	r.began, r.started = codex.began.Sub(set), codex.began.Add(at).Sub(set)
	r.agentReady = readHops(t, su.log)["turn 1|"+trace.AgentReady]
	return r
}

// startSpan is one agent start of hub's trace: when it began (wall clock)
// and its hops' offsets.
type startSpan struct {
	began time.Time
	hops  map[string]time.Duration
}

// startSpans reads hub's trace's agent starts in the order they began.
func startSpans(t *testing.T, path string) []startSpan {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("hub's log: %v", err)
	}
	byN := map[int64]*startSpan{}
	for line := range strings.Lines(string(data)) {
		var l struct {
			Message, Span, Hop string
			N                  int64
			UnixUS             int64 `json:"unix_us"`
			MS                 float64
		}
		if json.Unmarshal([]byte(line), &l) != nil || l.Message != "trace" || l.Span != "start" {
			continue
		}
		at := time.Duration(l.MS * float64(time.Millisecond))
		s := byN[l.N]
		if s == nil {
			s = &startSpan{began: time.UnixMicro(l.UnixUS).Add(-at), hops: map[string]time.Duration{}}
			byN[l.N] = s
		}
		s.hops[l.Hop] = at
	}
	var out []startSpan
	for _, n := range slices.Sorted(maps.Keys(byN)) {
		out = append(out, *byN[n])
	}
	return out
}
