//go:build e2e && unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/acpclient/acptest"
	"github.com/hubdev/hub/adapters/gemini"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc"
)

// The gemini recorder runs the pinned gemini CLI against the scripted mock
// and checks what hub's decoders make of each stream. With
// HUB_GEMINIREC_WRITE=1 it also stores the streams as fixtures under
// testdata/gemini/<case>/stream.jsonl (goldens: go test ./adapters/gemini ./adapters/acpclient -update).

type geminirecCase struct {
	name   string
	turns  []mockllm.GeminiTurn
	modes  []string // "streamjson", "acp"; default both
	cancel bool     // interrupt once a tool call is announced
	// stdoutFile sends stream-json to a file instead of a pipe (see
	// geminirecStreamJSONFile).
	stdoutFile bool
	longLine   bool // the stream must carry a line of at least a megabyte
	// answer, when set, runs ACP without --yolo and answers each permission
	// request with the option of this kind.
	answer  string
	want    adapters.EventType
	timeout time.Duration
}

func geminirecCases() []geminirecCase {
	long := `head -c 1000000 /dev/zero | tr '\0' x`
	return []geminirecCase{
		{name: "text", turns: []mockllm.GeminiTurn{{Text: "Hello from the mock model."}}, want: adapters.EventText},
		{name: "thinking", turns: []mockllm.GeminiTurn{{Thought: "Let me think about greetings.", Text: "Hello after thinking."}}, want: adapters.EventText},
		{name: "api-error", turns: []mockllm.GeminiTurn{{Status: 400}}, want: adapters.EventError},
		{name: "rate-limit", turns: []mockllm.GeminiTurn{{Status: 429}, {Text: "Answer after the retry."}}, want: adapters.EventText, timeout: 90 * time.Second},
		{name: "cancel-mid-tool", cancel: true, want: adapters.EventToolCall, turns: []mockllm.GeminiTurn{{Text: "Sleeping.",
			ToolCalls: []mockllm.GeminiToolCall{{Name: "run_shell_command", Args: `{"command":"sleep 30","description":"wait"}`}}}}},
		{name: "long-write", modes: []string{"acp"}, want: adapters.EventToolUpdate, longLine: true, turns: []mockllm.GeminiTurn{{Text: "Writing a big file.",
			ToolCalls: []mockllm.GeminiToolCall{{Name: "write_file", Args: fmt.Sprintf(`{"file_path":"big.txt","content":%q}`, strings.Repeat("x", 1_000_000))}}},
			{Text: "Wrote a megabyte of x."}}},
		{name: "long-line", modes: []string{"streamjson"}, want: adapters.EventToolUpdate, stdoutFile: true, longLine: true, turns: []mockllm.GeminiTurn{{Text: "Printing a lot.",
			ToolCalls: []mockllm.GeminiToolCall{{Name: "run_shell_command", Args: fmt.Sprintf(`{"command":%q,"description":"big output"}`, long)}}},
			{Text: "That was a megabyte of x."}}},
		{name: "reject", modes: []string{"acp"}, answer: "reject_once", want: adapters.EventPermission, turns: []mockllm.GeminiTurn{geminiWriteTurn(),
			{Text: "Okay, not running it."}}},
	}
}

func TestGeminirec_Record(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	for _, mode := range []string{"streamjson", "acp"} {
		for _, c := range geminirecCases() {
			if len(c.modes) > 0 && !slices.Contains(c.modes, mode) {
				continue
			}
			t.Run(mode+"-"+c.name, func(t *testing.T) {
				mock := mockllm.NewGeminiServer(c.turns...)
				defer mock.Close()
				var lines [][]byte
				var evs []adapters.Event
				if mode == "acp" {
					lines = geminirecACP(t, bin, mock, c)
					evs = geminirecDecode(acptest.Lines{D: &acpclient.ACPDecoder{Quirks: gemini.Quirks}}, lines)
				} else {
					lines = geminirecStreamJSON(t, bin, mock, c)
					evs = geminirecDecode(gemini.NewGeminiDecoder(), lines)
				}
				if !geminirecHas(evs, c.want) {
					t.Fatalf("no %s event in %d decoded events from:\n%s\nmodel calls: %s", c.want, len(evs), geminirecHead(lines), geminirecCalls(mock))
				}
				if !c.cancel && (len(evs) == 0 || evs[len(evs)-1].Type != adapters.EventDone) {
					t.Fatalf("stream did not end with a done event (%d events) from:\n%s\nmodel calls: %s", len(evs), geminirecHead(lines), geminirecCalls(mock))
				}
				for _, e := range evs {
					if e.Type == adapters.EventRaw && strings.HasSuffix(e.Source, ":invalid") {
						t.Errorf("line not JSON: %s", e.Raw)
					}
				}
				if c.longLine && !slices.ContainsFunc(lines, func(l []byte) bool { return len(l) >= 1_000_000 }) {
					t.Errorf("no line of a megabyte in:\n%s", geminirecHead(lines))
				}
				if os.Getenv("HUB_GEMINIREC_WRITE") == "1" {
					geminirecWrite(t, mode+"-"+c.name, lines)
				}
			})
		}
	}
}

func geminirecEnv(t *testing.T, mock *mockllm.GeminiServer) ([]string, string) {
	home := t.TempDir()
	geminiSettings(t, home)
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	for k, v := range geminiEnv(mock) {
		env = append(env, k+"="+v)
	}
	return env, t.TempDir()
}

func geminirecStart(t *testing.T, bin string, args []string, mock *mockllm.GeminiServer, c geminirecCase) (*proc.Process, *bufio.Reader, string) {
	env, cwd := geminirecEnv(t, mock)
	timeout := c.timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	p, err := proc.Start(ctx, proc.Spec{Path: bin, Args: args, Dir: cwd, Env: env, StopSignal: syscall.SIGINT})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop() })
	return p, bufio.NewReaderSize(p.Stdout, 1<<20), cwd
}

func geminirecStreamJSON(t *testing.T, bin string, mock *mockllm.GeminiServer, c geminirecCase) [][]byte {
	args := []string{"-p", "Please help with the " + c.name + " case", "-o", "stream-json", "--skip-trust", "--yolo", "-m", geminiModel}
	if c.stdoutFile {
		return geminirecStreamJSONFile(t, bin, args, mock, c)
	}
	p, r, _ := geminirecStart(t, bin, args, mock, c)
	_ = p.Stdin.Close()
	var lines [][]byte
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			lines = append(lines, line)
			if c.cancel && strings.Contains(string(line), `"type":"tool_use"`) {
				time.Sleep(500 * time.Millisecond)
				_ = p.Signal(syscall.SIGINT)
			}
		}
		if err != nil {
			break
		}
	}
	_ = p.Wait()
	if !c.cancel && (len(lines) == 0 || !strings.Contains(string(lines[len(lines)-1]), `"type":"result"`)) {
		t.Logf("gemini stream-json ended without a result line; stderr:\n%s", p.StderrTail(30))
	}
	return lines
}

// geminirecStreamJSONFile runs gemini with stdout on a file. gemini 0.61
// writes stream-json to a pipe asynchronously and exits without flushing,
// so after a megabyte line the tail of the stream (and the result line) is
// lost on a pipe; file writes are synchronous.
func geminirecStreamJSONFile(t *testing.T, bin string, args []string, mock *mockllm.GeminiServer, c geminirecCase) [][]byte {
	out := filepath.Join(t.TempDir(), "stdout.jsonl")
	sh := append([]string{"-c", `out="$1"; shift; exec "$@" >"$out"`, "sh", out, bin}, args...)
	p, _, _ := geminirecStart(t, "/bin/sh", sh, mock, c)
	_ = p.Stdin.Close()
	_ = p.Wait()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, []byte(l))
		}
	}
	if len(lines) == 0 || !strings.Contains(string(lines[len(lines)-1]), `"type":"result"`) {
		t.Logf("gemini stream-json ended without a result line; stderr:\n%s", p.StderrTail(30))
	}
	return lines
}

func geminirecACP(t *testing.T, bin string, mock *mockllm.GeminiServer, c geminirecCase) [][]byte {
	args := []string{"--acp", "--skip-trust", "--yolo", "-m", geminiModel}
	if c.answer != "" {
		args = slices.DeleteFunc(args, func(a string) bool { return a == "--yolo" })
	}
	p, r, cwd := geminirecStart(t, bin, args, mock, c)
	send := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		b, _ := json.Marshal(v)
		if _, err := p.Stdin.Write(append(b, '\n')); err != nil {
			t.Fatalf("write to gemini: %v", err)
		}
	}
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false}}})
	var lines [][]byte
	sid := ""
	cancelled := false
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			lines = append(lines, line)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			_ = json.Unmarshal(line, &m)
			switch {
			case m.Method == "session/request_permission" && c.answer != "":
				send(map[string]any{"id": m.ID, "result": map[string]any{"outcome": geminirecAnswer(m.Params, c.answer)}})
			case string(m.ID) == "1" && m.Method == "":
				send(map[string]any{"id": 2, "method": "session/new", "params": map[string]any{"cwd": cwd, "mcpServers": []any{}}})
			case string(m.ID) == "2" && m.Method == "":
				var res struct {
					SessionID string `json:"sessionId"`
				}
				_ = json.Unmarshal(m.Result, &res)
				sid = res.SessionID
				send(map[string]any{"id": 3, "method": "session/prompt", "params": map[string]any{"sessionId": sid,
					"prompt": []any{map[string]any{"type": "text", "text": "Please help with the " + c.name + " case"}}}})
			case string(m.ID) == "3" && m.Method == "":
				_ = p.Stdin.Close()
				_ = p.Wait()
				return lines
			case c.cancel && !cancelled && strings.Contains(string(line), `"sessionUpdate":"tool_call"`):
				cancelled = true
				time.Sleep(500 * time.Millisecond)
				send(map[string]any{"method": "session/cancel", "params": map[string]any{"sessionId": sid}})
			}
		}
		if err != nil {
			t.Fatalf("gemini --acp ended before the prompt answer: %v\n%s", err, p.StderrTail(20))
		}
	}
}

// geminirecAnswer picks the permission option of kind, "cancelled" when
// gemini offers none.
func geminirecAnswer(params json.RawMessage, kind string) map[string]any {
	var p struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	_ = json.Unmarshal(params, &p)
	for _, o := range p.Options {
		if o.Kind == kind {
			return map[string]any{"outcome": "selected", "optionId": o.OptionID}
		}
	}
	return map[string]any{"outcome": "cancelled"}
}

// geminirecCalls summarises the model requests the mock answered, to tell
// a stream cut short by an unscripted model call from a CLI problem.
func geminirecCalls(mock *mockllm.GeminiServer) string {
	var parts []string
	for _, r := range mock.Requests() {
		parts = append(parts, fmt.Sprintf("%s/%s(%d bytes)", r.Method, r.Model, len(r.Body)))
	}
	return fmt.Sprintf("%s; %d turns left", strings.Join(parts, " "), mock.Remaining())
}

func geminirecJoin(lines [][]byte) []byte {
	var b []byte
	for _, l := range lines {
		b = append(b, l...)
	}
	return b
}

// geminirecDecode feeds d each recorded line, as a session's reader does.
func geminirecDecode(d adapters.LineDecoder, lines [][]byte) (evs []adapters.Event) {
	for _, l := range lines {
		evs = append(evs, d.Decode(l)...)
	}
	return evs
}

func geminirecHas(evs []adapters.Event, typ adapters.EventType) bool {
	for _, e := range evs {
		if e.Type == typ {
			return true
		}
	}
	return false
}

func geminirecHead(lines [][]byte) string {
	var sb strings.Builder
	for _, l := range lines {
		if len(l) > 300 {
			l = append(l[:300:300], "...\n"...)
		}
		sb.Write(l)
	}
	return sb.String()
}

func geminirecWrite(t *testing.T, name string, lines [][]byte) {
	dir := filepath.Join("..", "adapters", "gemini", "testdata", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stream.jsonl"), geminirecJoin(lines), 0o644); err != nil {
		t.Fatal(err)
	}
}
