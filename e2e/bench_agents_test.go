//go:build e2e && unix

package e2e

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
)

// The first-prompt benchmark (make bench; HUB_BENCH_AGENTS=1): for every
// real CLI in the e2e cache, hub against the agent's dedicated ACP adapter,
// as an editor sees them: spawn -> session ready, then after a pause the
// first prompt -> first text and -> answer. It prints figures; it asserts
// nothing about them.

const (
	benchPause = 2 * time.Second // the user typing before the first prompt
	benchRuns  = 3               // HUB_BENCH_RUNS overrides
)

// benchPeer is a minimal ACP client over one agent process.
type benchPeer struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	mu       sync.Mutex
	next     int
	wait     map[int]chan json.RawMessage
	text     chan time.Time // a session's first agent_message_chunk
	surfaced chan struct{}  // a config_option_update: an agent up reported its options
	sawTx    bool
	sent     time.Time // the last prompt's
}

func startPeer(t *testing.T, argv, env []string, dir string) *benchPeer {
	t.Helper()
	p := &benchPeer{wait: map[int]chan json.RawMessage{}, text: make(chan time.Time, 1), surfaced: make(chan struct{}, 1)}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Env, p.cmd.Dir = env, dir
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.stdin.Close()
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // its process group only
		_ = p.cmd.Wait()
	})
	go p.read(out)
	return p
}

func (p *benchPeer) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "session/update":
			// The first chunk of the model's answer: codex-acp sends codex's
			// warnings as text chunks before it, which a user does not
			// count as the answer.
			if strings.Contains(string(m.Params), `"agent_message_chunk"`) && strings.Contains(string(m.Params), "Hello") {
				p.mu.Lock()
				first := !p.sawTx
				p.sawTx = true
				p.mu.Unlock()
				if first {
					p.text <- time.Now()
				}
			}
			if strings.Contains(string(m.Params), `"config_option_update"`) {
				select {
				case p.surfaced <- struct{}{}:
				default: // one signal pending is enough
				}
			}
		case m.Method != "" && m.ID != nil: // a request of the agent: no client methods here
			p.send(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		case m.ID != nil:
			p.mu.Lock()
			ch := p.wait[*m.ID]
			p.mu.Unlock()
			if ch != nil {
				if len(m.Error) > 0 {
					ch <- m.Error
				} else {
					ch <- m.Result
				}
			}
		}
	}
}

func (p *benchPeer) send(v any) {
	b, _ := json.Marshal(v)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.stdin.Write(append(b, '\n'))
}

// call sends a request and waits for its answer.
func (p *benchPeer) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	p.mu.Lock()
	p.next++
	id := p.next
	ch := make(chan json.RawMessage, 1)
	p.wait[id] = ch
	p.mu.Unlock()
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case r := <-ch:
		return r
	case <-time.After(3 * time.Minute):
		t.Fatalf("%s: no answer", method)
		return nil
	}
}

// benchSetup is one fresh run of a system: its command, and where to read
// when the mock model was asked (and hub's trace, for hub).
type benchSetup struct {
	argv, env []string
	dir       string
	served    func() []time.Time
	log       string // hub's log file (HUB_TRACE=1); "" for an adapter
}

// benchRun is one measured session: two prompts, and hub's trace hops.
type benchRun struct {
	ready  time.Duration
	prompt [2]promptRun
	hops   map[string]time.Duration // "start|spawned", "turn 1|prompt written", ...
}

// promptRun is one prompt: sent -> the mock model asked, first text, answer.
type promptRun struct{ model, firstText, answer time.Duration }

func measure(t *testing.T, su benchSetup) benchRun {
	t.Helper()
	start := time.Now()
	p, sid := openSession(t, su)
	r := benchRun{ready: time.Since(start)}
	time.Sleep(benchPause) // the measured scenario: a user typing, not a synchronisation
	for i := range r.prompt {
		r.prompt[i] = p.prompt(t, sid, su.argv[0])
		for _, at := range su.served() { // the first request after the prompt
			if at.After(p.sent) {
				r.prompt[i].model = at.Sub(p.sent)
				break
			}
		}
	}
	if su.log != "" {
		r.hops = readHops(t, su.log)
		if keep := os.Getenv("HUB_BENCH_KEEP"); keep != "" { // a directory for hub's logs
			data, _ := os.ReadFile(su.log)
			_ = os.WriteFile(filepath.Join(keep, fmt.Sprintf("hub-%d.log", time.Now().UnixNano())), data, 0o644)
		}
	}
	return r
}

// openSession starts su's system and opens a session on it.
func openSession(t *testing.T, su benchSetup) (*benchPeer, string) {
	t.Helper()
	p := startPeer(t, su.argv, su.env, su.dir)
	p.call(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(p.call(t, "session/new", map[string]any{"cwd": su.dir, "mcpServers": []any{}}), &s); err != nil || s.SessionID == "" {
		t.Fatalf("%s: session/new failed", su.argv[0])
	}
	return p, s.SessionID
}

// prompt sends one prompt and times its first text and answer.
func (p *benchPeer) prompt(t *testing.T, session, name string) promptRun {
	p.mu.Lock()
	p.sawTx = false
	p.mu.Unlock()
	p.sent = time.Now()
	res := p.call(t, "session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": "hi"}}})
	r := promptRun{answer: time.Since(p.sent)}
	if !strings.Contains(string(res), "stopReason") {
		t.Fatalf("%s: prompt answered %s", name, res)
	}
	select {
	case at := <-p.text:
		r.firstText = at.Sub(p.sent)
	default:
		t.Fatalf("%s: no text before the answer", name)
	}
	return r
}

// readHops reads hub's trace: the first agent start's hops and those of
// the first two turns, by span number.
func readHops(t *testing.T, path string) map[string]time.Duration {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("hub's log: %v", err)
	}
	hops := map[string]time.Duration{}
	names := map[int64]string{}
	turns := 0
	for line := range strings.Lines(string(data)) {
		var l struct {
			Message, Span, Hop string
			N                  int64
			MS                 float64
		}
		if json.Unmarshal([]byte(line), &l) != nil || l.Message != "trace" {
			continue
		}
		name, ok := names[l.N]
		if !ok {
			switch {
			case l.Span == "start" && !slices.Contains(slices.Collect(maps.Values(names)), "start"):
				name = "start"
			case l.Span == "turn" && turns < 2:
				turns++
				name = fmt.Sprintf("turn %d", turns)
			default:
				name = "-"
			}
			names[l.N] = name
		}
		if name != "-" {
			hops[name+"|"+l.Hop] = time.Duration(l.MS * float64(time.Millisecond))
		}
	}
	return hops
}

// benchSystem is one agent under one front end.
type benchSystem struct {
	agent, system string
	setup         func(t *testing.T) benchSetup
}

func TestBench_FirstPrompt(t *testing.T) {
	if os.Getenv("HUB_BENCH_AGENTS") != "1" {
		t.Skip("make bench runs it (HUB_BENCH_AGENTS=1)")
	}
	var rows, hopRows []string
	firstText := map[string]map[string]time.Duration{} // agent -> system -> median
	for _, sys := range benchSystems(t) {
		if only := os.Getenv("HUB_BENCH_ONLY"); only != "" && !strings.Contains(sys.agent+" "+sys.system, only) {
			continue // HUB_BENCH_ONLY="claude 2.1.330 hub" measures one row
		}
		var runs []benchRun
		for range runsWanted() {
			runs = append(runs, measure(t, sys.setup(t)))
		}
		med := func(f func(benchRun) time.Duration) string { return median(runs, f).Round(time.Millisecond).String() }
		pr := func(i int) string {
			return med(func(r benchRun) time.Duration { return r.prompt[i].model }) + " | " +
				med(func(r benchRun) time.Duration { return r.prompt[i].firstText }) + " | " +
				med(func(r benchRun) time.Duration { return r.prompt[i].answer })
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s |", sys.agent, sys.system,
			med(func(r benchRun) time.Duration { return r.ready }), pr(0), pr(1)))
		if firstText[sys.agent] == nil {
			firstText[sys.agent] = map[string]time.Duration{}
		}
		firstText[sys.agent][sys.system] = median(runs, func(r benchRun) time.Duration { return r.prompt[0].firstText })
		if sys.system == "hub" {
			hopRows = append(hopRows, hopTable(sys.agent, runs)...)
		}
	}
	fmt.Printf("\nfirst prompt after a %s pause, then a second one; medians of %d; first text is the model's, not a warning; model = the mock LLM asked (make bench)\n", benchPause, runsWanted())
	fmt.Println("| agent | system | spawn -> session ready | 1st: model | 1st: first text | 1st: answer | 2nd: model | 2nd: first text | 2nd: answer |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Printf("\nhops of hub's trace (HUB_TRACE=1), ms since the start began or the prompt was received, medians of %d\n", runsWanted())
	fmt.Println("| agent | span | hop | median |")
	fmt.Println("|---|---|---|---|")
	for _, r := range hopRows {
		fmt.Println(r)
	}
	fmt.Println("\nfirst text: hub against the fastest adapter on the same agent version (issue 36: at most 1.5x)")
	fmt.Println("| agent | hub | fastest adapter | ratio |")
	fmt.Println("|---|---|---|---|")
	for _, agent := range slices.Sorted(maps.Keys(firstText)) {
		if r := ratioRow(agent, firstText); r != "" {
			fmt.Println(r)
		}
	}
}

// ratioRow compares hub's first text on agent (a name and version) with
// the fastest adapter's on the same version, else on any version of the
// agent (codex-acp builds its own codex); "" without a hub row.
func ratioRow(agent string, firstText map[string]map[string]time.Duration) string {
	hub, ok := firstText[agent]["hub"]
	if !ok {
		return ""
	}
	fastest := func(same func(string) bool) (string, time.Duration) {
		name, best := "", time.Duration(0)
		for a, bySystem := range firstText {
			for sys, d := range bySystem {
				if sys != "hub" && same(a) && (name == "" || d < best) {
					name, best = sys+" on "+a, d
				}
			}
		}
		return name, best
	}
	name, best := fastest(func(a string) bool { return a == agent })
	if name == "" {
		family := strings.Fields(agent)[0]
		name, best = fastest(func(a string) bool { return strings.Fields(a)[0] == family })
	}
	if name == "" || best <= 0 {
		return ""
	}
	return fmt.Sprintf("| %s | %s | %s %s | %.2fx |", agent, hub.Round(time.Millisecond), name, best.Round(time.Millisecond), float64(hub)/float64(best))
}

func runsWanted() int {
	if n, err := strconv.Atoi(os.Getenv("HUB_BENCH_RUNS")); err == nil && n > 0 {
		return n
	}
	return benchRuns
}

// hopTable is one row per hop hub traced, in the order of the median.
func hopTable(agent string, runs []benchRun) []string {
	keys := map[string]bool{}
	for _, r := range runs {
		for k := range r.hops {
			keys[k] = true
		}
	}
	type row struct {
		span, hop string
		at        time.Duration
	}
	var out []row
	for k := range keys {
		var ds []time.Duration
		for _, r := range runs {
			if d, ok := r.hops[k]; ok {
				ds = append(ds, d)
			}
		}
		slices.Sort(ds)
		span, hop, _ := strings.Cut(k, "|")
		out = append(out, row{span, hop, ds[len(ds)/2]})
	}
	slices.SortFunc(out, func(a, b row) int {
		return cmp.Or(strings.Compare(a.span, b.span), cmp.Compare(a.at, b.at))
	})
	var lines []string
	for _, r := range out {
		lines = append(lines, fmt.Sprintf("| %s | %s | %s | %.1f ms |", agent, r.span, r.hop, float64(r.at.Microseconds())/1000))
	}
	return lines
}

func median[R any](runs []R, f func(R) time.Duration) time.Duration {
	var ds []time.Duration
	for _, r := range runs {
		ds = append(ds, f(r))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// benchSystems lists hub and each dedicated adapter for the CLIs in the
// cache; a missing dedicated adapter is left out of the table.
func benchSystems(t *testing.T) []benchSystem {
	cache := e2eCache(t)
	adapter := func(name string) string {
		p := filepath.Join(cache, "bench", name, "node_modules", ".bin", name)
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		return p
	}
	hubRun := hubBenchRun
	// adapterRun runs an adapter with env (beside the isolated home's).
	adapterRun := func(t *testing.T, argv []string, home string, env []string, served func() []time.Time) benchSetup {
		return benchSetup{argv: argv, env: e2eEnv(home, "bench", env), dir: t.TempDir(), served: served}
	}
	var out []benchSystem
	anthropic := func(t *testing.T) *mockllm.AnthropicServer {
		m := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Hello from the mock."}, mockllm.AnthropicTurn{Text: "Hello again."},
			mockllm.AnthropicTurn{Text: "Hello again."}, mockllm.AnthropicTurn{Text: "Hello again."}) // the adapters ask more than once
		t.Cleanup(m.Close)
		return m
	}
	// hub runs the pinned claude and each claude an adapter bundles, and
	// each adapter runs its own and the pinned one (CLAUDE_CODE_EXECUTABLE),
	// so every ratio compares one claude version with itself.
	pinned := claudeBuild{cliVersion("claude"), e2eCLI(t, "claude", "claude")}
	claudes := []claudeBuild{pinned}
	for _, ad := range []string{"claude-agent-acp 0.101.0", "claude-code-acp 0.16.2"} {
		bin := adapter(strings.Fields(ad)[0])
		if bin == "" {
			continue
		}
		own := bundledClaude(cache, strings.Fields(ad)[0])
		if own.bin != "" && !slices.Contains(claudes, own) {
			claudes = append(claudes, own)
		}
		for _, c := range []claudeBuild{own, pinned} {
			if c.bin == "" {
				continue
			}
			out = append(out, benchSystem{"claude " + c.version, ad, func(t *testing.T) benchSetup {
				// The adapters start claude with bypass permissions available,
				// which claude refuses as root outside a sandbox.
				env := []string{"IS_SANDBOX=1", "CLAUDE_CODE_EXECUTABLE=" + c.bin}
				m := anthropic(t)
				for k, v := range claudeEnv(m) {
					env = append(env, k+"="+v)
				}
				return adapterRun(t, []string{bin}, t.TempDir(), env, m.Served)
			}})
		}
	}
	for _, c := range claudes {
		out = append(out, benchSystem{"claude " + c.version, "hub", hubRun(func(t *testing.T, _ string) (string, func() []time.Time) {
			m := anthropic(t)
			return claudeHubConfigFor(c.bin, m), m.Served
		})})
	}
	responses := func(t *testing.T) *mockllm.ResponsesServer {
		m := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "Hello from the mock."}, mockllm.ResponsesTurn{Text: "Hello again."},
			mockllm.ResponsesTurn{Text: "Hello again."}, mockllm.ResponsesTurn{Text: "Hello again."})
		t.Cleanup(m.Close)
		return m
	}
	out = append(out, benchSystem{"codex " + cliVersion("codex"), "hub", hubRun(func(t *testing.T, _ string) (string, func() []time.Time) {
		m := responses(t)
		return codexPlainConfig(t, m), m.Served
	})})
	if bin := adapter("codex-acp"); bin != "" {
		out = append(out, benchSystem{"codex (codex-acp's own)", "codex-acp 2.6.0", func(t *testing.T) benchSetup {
			home := t.TempDir()
			m := responses(t)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(m.CodexConfig("mock-model", "MOCK_API_KEY")), 0o644); err != nil {
				t.Fatal(err)
			}
			return adapterRun(t, []string{bin}, home, []string{"CODEX_HOME=" + home, "MOCK_API_KEY=sk-mock"}, m.Served)
		}})
	}
	gemini := func(t *testing.T) *mockllm.GeminiServer {
		m := mockllm.NewGeminiServer(mockllm.GeminiTurn{Text: "Hello from the mock."}, mockllm.GeminiTurn{Text: "Hello again."},
			mockllm.GeminiTurn{Text: "Hello again."}, mockllm.GeminiTurn{Text: "Hello again."})
		t.Cleanup(m.Close)
		return m
	}
	geminiBin := e2eCLI(t, "gemini", "gemini")
	out = append(out, benchSystem{"gemini " + cliVersion("gemini"), "hub", hubRun(func(t *testing.T, home string) (string, func() []time.Time) {
		geminiSettings(t, home)
		m := gemini(t)
		return geminiHubCfg(geminiBin, m), m.Served
	})})
	out = append(out, benchSystem{"gemini " + cliVersion("gemini"), "gemini --acp", func(t *testing.T) benchSetup {
		home := t.TempDir()
		geminiSettings(t, home)
		var env []string
		m := gemini(t)
		for k, v := range geminiEnv(m) {
			env = append(env, k+"="+v)
		}
		return adapterRun(t, []string{geminiBin, "--acp", "--skip-trust", "-m", geminiModel}, home, env, m.Served)
	}})
	return out
}

// hubBenchRun runs hub acp with cfg's config, tracing to a log file.
func hubBenchRun(cfg func(t *testing.T, home string) (string, func() []time.Time)) func(t *testing.T) benchSetup {
	return func(t *testing.T) benchSetup {
		home := t.TempDir()
		cfgDir := filepath.Join(home, ".config", "hub")
		if err := os.MkdirAll(cfgDir, 0o755); err != nil {
			t.Fatal(err)
		}
		text, served := cfg(t, home)
		if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		log := filepath.Join(home, "hub.log")
		return benchSetup{argv: []string{e2eHubBin(t), "acp", "--log-file", log}, log: log, served: served,
			env: e2eEnv(home, "bench", []string{"HUB_LOG=" + cmp.Or(os.Getenv("HUB_BENCH_LOG"), "warn"), "HUB_TRACE=1"}), dir: t.TempDir()}
	}
}

// claudeBuild is one claude the bench runs: its version and executable.
type claudeBuild struct{ version, bin string }

// bundledClaude is the claude an adapter's SDK brings (its version from the
// SDK's package.json); zero when it is not there.
func bundledClaude(cache, adapter string) claudeBuild {
	mods := filepath.Join(cache, "bench", adapter, "node_modules", "@anthropic-ai")
	var pkg struct {
		Version string `json:"claudeCodeVersion"`
	}
	if data, err := os.ReadFile(filepath.Join(mods, "claude-agent-sdk", "package.json")); err != nil || json.Unmarshal(data, &pkg) != nil || pkg.Version == "" {
		return claudeBuild{}
	}
	for _, bin := range []string{filepath.Join(mods, "claude-agent-sdk-linux-x64", "claude"), filepath.Join(mods, "claude-agent-sdk", "cli.js")} {
		if _, err := os.Stat(bin); err == nil {
			return claudeBuild{pkg.Version, bin}
		}
	}
	return claudeBuild{}
}

// cliVersion is the pinned version of a cached CLI (scripts/e2e-deps.sh).
func cliVersion(agent string) string {
	return map[string]string{"claude": "2.1.330", "codex": "0.169.0", "gemini": "0.61.0"}[agent]
}
