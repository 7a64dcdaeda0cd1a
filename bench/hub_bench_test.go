package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	buildDir  string
	builtBin  string
	buildErr  error
)

// TestMain removes the binary built by the benchmarks; it builds nothing, so
// plain `go test ./...` stays fast.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// hubBin is $HUB_BIN, else ./cmd/hub built once (stripped, as `make build`).
func hubBin(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("HUB_BIN"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "hub-bench-"); buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "hub")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", builtBin, "github.com/hubdev/hub/cmd/hub")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/hub: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return builtBin
}

// isolatedEnv gives the process its own HOME and XDG dirs so neither the
// user's config nor their session index is read or written, and a config
// naming the replay agent (which echoes; hub lists it only when configured).
func isolatedEnv(b *testing.B) []string {
	root := b.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root}
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"} {
		dir := filepath.Join(root, strings.ToLower(k))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		env = append(env, k+"="+dir)
	}
	cfg := filepath.Join(root, "xdg_config_home", "hub", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[agents.replay]\ntype = \"replay\"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	return env
}

// hubProc is one `hub acp` process with line-based JSON-RPC over its pipes.
type hubProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startHub(b *testing.B, bin string, env []string) (*hubProc, time.Time) {
	b.Helper()
	cmd := exec.Command(bin, "acp", "--agent", "replay")
	cmd.Env = env
	cmd.Dir = b.TempDir()
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &hubProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, start
}

// call writes one request and reads lines until its response, skipping
// notifications; every line must be one JSON object (C01).
func (h *hubProc) call(method string, params any) (json.RawMessage, error) {
	h.id++
	p, _ := json.Marshal(params)
	if _, err := fmt.Fprintf(h.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", h.id, method, p); err != nil {
		return nil, fmt.Errorf("write %s: %w", method, err)
	}
	for {
		line, err := h.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("read %s response: %w", method, err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("stdout line is not JSON: %q", line)
		}
		if m.Method != "" || !bytes.Equal(m.ID, []byte(strconv.Itoa(h.id))) {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error)
		}
		return m.Result, nil
	}
}

// stop closes stdin (hub exits on EOF) and reaps the process; it kills
// only this process, and only if it does not exit by itself.
func (h *hubProc) stop(b *testing.B) {
	_ = h.in.Close()
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			b.Errorf("hub acp exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		_ = h.cmd.Process.Kill()
		<-done
		b.Error("hub acp did not exit after stdin EOF")
	}
}

var initParams = map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}

// BenchmarkSpawnToInitialize times process start to the initialize
// response line (anchor: claude-code-acp 300–350 ms; target < 10 ms).
func BenchmarkSpawnToInitialize(b *testing.B) {
	bin, env := hubBin(b), isolatedEnv(b)
	var lat []time.Duration
	for b.Loop() {
		h, start := startHub(b, bin, env)
		if _, err := h.call("initialize", initParams); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		h.stop(b)
	}
	slices.Sort(lat)
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkRSSAfterSessionNew reports the resident set of `hub acp` after
// initialize + session/new on the replay agent, and after its first prompt
// (anchor: claude-code-acp ~85 MB; target < 15 MB).
func BenchmarkRSSAfterSessionNew(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/<pid>/status")
	}
	bin, env := hubBin(b), isolatedEnv(b)
	var rss, hwm, rssPrompt []float64
	for b.Loop() {
		h, _ := startHub(b, bin, env)
		cwd := b.TempDir()
		if _, err := h.call("initialize", initParams); err != nil {
			b.Fatal(err)
		}
		res, err := h.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
		if err != nil {
			b.Fatal(err)
		}
		r, _ := procStatusMB(h.cmd.Process.Pid)
		var s struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(res, &s)
		prompt := map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "hello"}}}
		if _, err := h.call("session/prompt", prompt); err != nil {
			b.Fatal(err)
		}
		rp, hw := procStatusMB(h.cmd.Process.Pid)
		rss, hwm, rssPrompt = append(rss, r), append(hwm, hw), append(rssPrompt, rp)
		h.stop(b)
	}
	b.ReportMetric(median(rss), "rss-MB")
	b.ReportMetric(median(rssPrompt), "rss-after-prompt-MB")
	b.ReportMetric(median(hwm), "hwm-MB")
}

// procStatusMB returns VmRSS and VmHWM of pid in MB (0 when unreadable).
func procStatusMB(pid int) (rss, hwm float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for line := range strings.Lines(string(data)) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		kb, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			rss = kb / 1024
		case "VmHWM":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
