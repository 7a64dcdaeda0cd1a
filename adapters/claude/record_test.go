//go:build clauderecord

package claude

// Records real Claude Code stream-json runs against the scripted Anthropic
// mock (internal/mockllm) into adapters/claude/testdata/<case>/stream.jsonl, with the
// flags the adapter uses (stream-json in and out, partial messages, stdio
// permission tool). Run by hand, then regenerate and review the goldens:
//
//	CLAUDE_BIN=$PWD/.cache/e2e/claude/node_modules/.bin/claude \
//	  go test -tags clauderecord -run TestRecord -v ./adapters/claude/
//	go test ./adapters/claude -run DecodeClaude_Fixtures -update
//
// CASE=<name> records one case (and -run DecodeClaude_Fixtures/<name>
// updates its golden only). HOME and the cwd are temp dirs; in the
// stored stream they read /home/dev and /home/dev/project like the other
// fixtures.

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc"
)

type recCase struct {
	name string
	// limited: this many POST /v1/messages are answered 429 rate_limit_error
	// with retry-after before the mock's turns are used; -1 means always.
	limited    int
	retryAfter string
	turns      []mockllm.AnthropicTurn
	env        []string
	args       []string // extra claude flags
}

func TestRecord(t *testing.T) {
	bin := os.Getenv("CLAUDE_BIN")
	if bin == "" {
		t.Skip("CLAUDE_BIN unset")
	}
	cases := []recCase{
		{name: "rec-rate-limit", limited: 2, retryAfter: "1",
			turns: []mockllm.AnthropicTurn{{Text: "Answer after the retry."}}},
		// CLAUDE_CODE_MAX_RETRIES keeps the give-up short (default 10).
		{name: "rec-rate-limit-exhausted", limited: -1, retryAfter: "1", env: []string{"CLAUDE_CODE_MAX_RETRIES=2"}},
		// The one allowed turn asks for a tool (Read needs no permission), so
		// claude stops before sending the tool's result back (error_max_turns).
		{name: "rec-max-turns", args: []string{"--max-turns", "1"}, turns: []mockllm.AnthropicTurn{
			{Text: "Reading the notes.", ToolUses: []mockllm.AnthropicToolUse{{Name: "Read", Input: `{"file_path":"notes.txt"}`}}},
			{Text: "Not reached: the second turn is over the limit."}}},
		// claude answers a max_tokens cut with "Output token limit hit.
		// Resume directly" three times, then gives up on the fourth.
		{name: "rec-max-tokens", turns: []mockllm.AnthropicTurn{
			{Text: "This answer is cut off in the mid", StopReason: "max_tokens"},
			{Text: "dle and again", StopReason: "max_tokens"},
			{Text: " and again", StopReason: "max_tokens"},
			{Text: " and again", StopReason: "max_tokens"}}},
		// --json-schema offers the model a StructuredOutput tool; its input
		// comes back as the result's structured_output.
		{name: "rec-structured-output", args: []string{"--json-schema", `{"type":"object","properties":{"verdict":{"type":"string"}},"required":["verdict"]}`},
			turns: []mockllm.AnthropicTurn{{Text: "Reviewing.", ToolUses: []mockllm.AnthropicToolUse{{Name: "StructuredOutput", Input: `{"verdict":"approve"}`}}}}},
	}
	only := os.Getenv("CASE")
	for _, c := range cases {
		if only != "" && only != c.name {
			continue
		}
		t.Run(c.name, func(t *testing.T) { record(t, bin, c) })
	}
}

// rateLimiter answers the first n message requests (all if n < 0) with 429
// and forwards everything else to the mock.
func rateLimiter(t *testing.T, mock *mockllm.AnthropicServer, n int, retryAfter string) *httptest.Server {
	target, _ := url.Parse(mock.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var seen atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/messages" {
			if k := seen.Add(1); n < 0 || int(k) <= n {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("retry-after", retryAfter)
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"type":"error","error":{"type":"rate_limit_error","message":"mock: rate limited"}}`))
				t.Logf("429 for request %d", k)
				return
			}
		}
		proxy.ServeHTTP(w, r)
	})
	return httptest.NewServer(h)
}

func record(t *testing.T, bin string, c recCase) {
	mock := mockllm.NewAnthropicServer(c.turns...)
	defer mock.Close()
	base := mock.URL
	if c.limited != 0 {
		srv := rateLimiter(t, mock, c.limited, c.retryAfter)
		defer srv.Close()
		base = srv.URL
	}
	root := t.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "HOME="+home, "ANTHROPIC_BASE_URL="+base, "ANTHROPIC_API_KEY=sk-mock",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	env = append(env, c.env...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := proc.Start(ctx, proc.Spec{Path: bin, Dir: cwd, Env: env, Args: append([]string{"-p", "--input-format", "stream-json",
		"--output-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio"}, c.args...)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Stop() }()
	msg, _ := json.Marshal(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Please help with the " + c.name + " case"}}}})
	if _, err := p.Stdin.Write(append(msg, '\n')); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := bufio.NewReaderSize(p.Stdout, 1<<20)
	for {
		line, err := r.ReadString('\n')
		out.WriteString(line)
		var rec struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Type == "result" {
			_ = p.Stdin.Close() // end of the turn: claude exits on stdin EOF
		}
		if err != nil {
			break
		}
	}
	_ = p.Wait()
	t.Logf("exit %d; %d model requests reached the mock; stderr:\n%s", p.ExitCode(), len(mock.Requests()), p.StderrTail(20))
	data := strings.NewReplacer(cwd, "/home/dev/project", strings.ReplaceAll(cwd, "/", "-"), "-home-dev-project",
		home, "/home/dev", root, "/home/dev").Replace(out.String())
	if !strings.Contains(data, `"type":"result"`) {
		t.Fatalf("no result line in:\n%s", data)
	}
	dir := filepath.Join("testdata", c.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stream.jsonl"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
