//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	benchRuns  = 3
)

// benchPeer is a minimal ACP client over one agent process.
type benchPeer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	next  int
	wait  map[int]chan json.RawMessage
	text  chan time.Time // a session's first agent_message_chunk
	sawTx bool
}

func startPeer(t *testing.T, argv, env []string, dir string) *benchPeer {
	t.Helper()
	p := &benchPeer{wait: map[int]chan json.RawMessage{}, text: make(chan time.Time, 1)}
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

// benchRun is one measured session.
type benchRun struct{ ready, firstText, answer time.Duration }

func measure(t *testing.T, argv, env []string, dir string) benchRun {
	t.Helper()
	start := time.Now()
	p := startPeer(t, argv, env, dir)
	p.call(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(p.call(t, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}}), &s); err != nil || s.SessionID == "" {
		t.Fatalf("%s: session/new failed", argv[0])
	}
	r := benchRun{ready: time.Since(start)}
	time.Sleep(benchPause) // the measured scenario: a user typing, not a synchronisation
	sent := time.Now()
	res := p.call(t, "session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "hi"}}})
	r.answer = time.Since(sent)
	if !strings.Contains(string(res), "stopReason") {
		t.Fatalf("%s: prompt answered %s", argv[0], res)
	}
	select {
	case at := <-p.text:
		r.firstText = at.Sub(sent)
	default:
		t.Fatalf("%s: no text before the answer", argv[0])
	}
	return r
}

// benchSystem is one agent under one front end.
type benchSystem struct {
	agent, system string
	// setup returns the argv, env and cwd of one fresh run.
	setup func(t *testing.T) (argv, env []string, dir string)
}

func TestBench_FirstPrompt(t *testing.T) {
	if os.Getenv("HUB_BENCH_AGENTS") != "1" {
		t.Skip("make bench runs it (HUB_BENCH_AGENTS=1)")
	}
	var rows []string
	for _, sys := range benchSystems(t) {
		var runs []benchRun
		for range benchRuns {
			argv, env, dir := sys.setup(t)
			runs = append(runs, measure(t, argv, env, dir))
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s |", sys.agent, sys.system,
			median(runs, func(r benchRun) time.Duration { return r.ready }),
			median(runs, func(r benchRun) time.Duration { return r.firstText }),
			median(runs, func(r benchRun) time.Duration { return r.answer })))
	}
	fmt.Printf("\nfirst prompt after a %s pause, medians of %d; first text is the model's, not a warning (make bench)\n", benchPause, benchRuns)
	fmt.Println("| agent | system | spawn -> session ready | first prompt -> first text | first prompt -> answer |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Println(r)
	}
}

func median(runs []benchRun, f func(benchRun) time.Duration) string {
	var ds []time.Duration
	for _, r := range runs {
		ds = append(ds, f(r))
	}
	slices.Sort(ds)
	return ds[len(ds)/2].Round(time.Millisecond).String()
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
	hubRun := func(cfg func(t *testing.T, home string) string) func(t *testing.T) ([]string, []string, string) {
		return func(t *testing.T) ([]string, []string, string) {
			home := t.TempDir()
			cfgDir := filepath.Join(home, ".config", "hub")
			if err := os.MkdirAll(cfgDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg(t, home)), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{e2eHubBin(t), "acp"}, e2eEnv(home, "bench", []string{"HUB_LOG=warn"}), t.TempDir()
		}
	}
	var out []benchSystem
	anthropic := func(t *testing.T) *mockllm.AnthropicServer {
		m := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Hello from the mock."}, mockllm.AnthropicTurn{Text: "Hello again."})
		t.Cleanup(m.Close)
		return m
	}
	out = append(out, benchSystem{"claude " + cliVersion("claude"), "hub", hubRun(func(t *testing.T, _ string) string {
		return claudeHubConfig(t, anthropic(t))
	})})
	if bin := adapter("claude-agent-acp"); bin != "" {
		out = append(out, benchSystem{"claude", "claude-agent-acp 0.101.0", func(t *testing.T) ([]string, []string, string) {
			home := t.TempDir()
			// claude-agent-acp starts claude with bypass permissions
			// available, which claude refuses as root outside a sandbox.
			env := []string{"IS_SANDBOX=1"}
			for k, v := range claudeEnv(anthropic(t)) {
				env = append(env, k+"="+v)
			}
			return []string{bin}, e2eEnv(home, "bench", env), t.TempDir()
		}})
	}
	responses := func(t *testing.T) *mockllm.ResponsesServer {
		m := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "Hello from the mock."}, mockllm.ResponsesTurn{Text: "Hello again."})
		t.Cleanup(m.Close)
		return m
	}
	out = append(out, benchSystem{"codex " + cliVersion("codex"), "hub", hubRun(func(t *testing.T, _ string) string {
		return codexPlainConfig(t, responses(t))
	})})
	if bin := adapter("codex-acp"); bin != "" {
		out = append(out, benchSystem{"codex", "codex-acp 2.6.0", func(t *testing.T) ([]string, []string, string) {
			home := t.TempDir()
			m := responses(t)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(m.CodexConfig("mock-model", "MOCK_API_KEY")), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{bin}, e2eEnv(home, "bench", []string{"CODEX_HOME=" + home, "MOCK_API_KEY=sk-mock"}), t.TempDir()
		}})
	}
	gemini := func(t *testing.T) *mockllm.GeminiServer {
		m := mockllm.NewGeminiServer(mockllm.GeminiTurn{Text: "Hello from the mock."}, mockllm.GeminiTurn{Text: "Hello again."})
		t.Cleanup(m.Close)
		return m
	}
	geminiBin := e2eCLI(t, "gemini", "gemini")
	out = append(out, benchSystem{"gemini " + cliVersion("gemini"), "hub", hubRun(func(t *testing.T, home string) string {
		geminiSettings(t, home)
		return geminiHubCfg(geminiBin, gemini(t))
	})})
	out = append(out, benchSystem{"gemini", "gemini --acp", func(t *testing.T) ([]string, []string, string) {
		home := t.TempDir()
		geminiSettings(t, home)
		var env []string
		for k, v := range geminiEnv(gemini(t)) {
			env = append(env, k+"="+v)
		}
		return []string{geminiBin, "--acp", "--skip-trust", "-m", geminiModel}, e2eEnv(home, "bench", env), t.TempDir()
	}})
	return out
}

// cliVersion is the pinned version of a cached CLI (scripts/e2e-deps.sh).
func cliVersion(agent string) string {
	return map[string]string{"claude": "2.1.330", "codex": "0.169.0", "gemini": "0.61.0"}[agent]
}
