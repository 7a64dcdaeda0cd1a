//go:build qoderrecord

package qoder

// Records real qodercli output into adapters/qoder/testdata/<case>/stream.jsonl.
// qodercli cannot use a custom model endpoint (clis.md §4.4), so the model
// side is its hidden test hook: --fake-responses <file> with canned Gemini
// GenerateContentResponse chunks (one line per model call), user settings
// {"security":{"auth":{"useExternal":true}}} to pass the login gate, and
// QODER_FAKE_STREAM_DELAY_MS=0 so every chunk is streamed. Everything else
// (tools, permissions, cancellation, the stream-json and ACP writers) is the
// real CLI. The hook drops thought parts and has no HTTP layer, so thinking
// and rate limits cannot be recorded this way.
//
// Run by hand (about 15 s per stream-json case: qodercli exits slowly),
// then regenerate and review the goldens:
//
//	QODER_BIN=$PWD/.cache/e2e/qodercli/node_modules/.bin/qodercli \
//	  go test -tags qoderrecord -run TestRecord -v -timeout 20m ./adapters/qoder/
//	go test ./streamparse -run 'ACPFixtures_Golden/qodercli' -update
//
// CASE=<name> records one case. HOME is a temp dir (qodercli writes ~/.qoder
// and the global git ignore file); in the stored stream the temp cwd reads
// /home/dev/project and HOME /home/dev, like the other fixtures.

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

type recCase struct {
	name  string
	acp   bool
	calls []string // --fake-responses lines, one per model call
	// cancelFile: interrupt once the running tool has created this file in
	// the cwd (SIGINT to the group in stream-json, session/cancel in ACP).
	cancelFile string
	// allow answers ACP permission requests with the allow_once option
	// (the session runs in qodercli's default mode, which asks).
	allow bool
}

// recText is a model call streaming the given text chunks.
func recText(chunks ...string) string {
	var parts []any
	for i, c := range chunks {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": c}}}}
		if i == len(chunks)-1 {
			cand["finishReason"] = "STOP"
		}
		parts = append(parts, map[string]any{"candidates": []any{cand}})
	}
	b, _ := json.Marshal(map[string]any{"method": "generateContentStream", "response": parts})
	return string(b)
}

// recBash is a model call streaming text, then a Bash tool call.
func recBash(text, command string) string {
	b, _ := json.Marshal(map[string]any{"method": "generateContentStream", "response": []any{
		map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}}}},
		map[string]any{"candidates": []any{map[string]any{"finishReason": "STOP", "content": map[string]any{"role": "model", "parts": []any{
			map[string]any{"functionCall": map[string]any{"name": "Bash", "args": map[string]any{"command": command, "description": "Run " + strings.Fields(command)[0]}}}}}}}},
	}})
	return string(b)
}

func recCases() []recCase {
	big := strings.Repeat("y", 1_000_000)
	long := `head -c 1000000 /dev/zero | tr '\0' x`
	tool := `echo hello-from-tool; echo to-stderr >&2; exit 3`
	sleep := `touch started.txt; sleep 30; echo late`
	var cases []recCase
	for _, acp := range []bool{false, true} {
		prefix := "streamjson-"
		if acp {
			prefix = "acp-"
		}
		cases = append(cases,
			recCase{name: prefix + "text", acp: acp, calls: []string{recText("Hello ", "from ", "qoder.")}},
			recCase{name: prefix + "tool", acp: acp, allow: true, calls: []string{recBash("I'll run a command. ", tool), recText("Done: ", "it exited 3.")}},
			recCase{name: prefix + "cancel-mid-tool", acp: acp, allow: true, cancelFile: "started.txt",
				calls: []string{recBash("Sleeping. ", sleep), recText("never")}},
			recCase{name: prefix + "long-line", acp: acp, allow: true, calls: []string{recBash("Printing a lot. ", long), recText(big, " That was a lot.")}},
			// No canned response left: qodercli's own model-error path.
			recCase{name: prefix + "error", acp: acp},
		)
	}
	cases = append(cases, recCase{name: "acp-cd", acp: true, allow: true, calls: []string{recBash("Making hooks. ", "mkdir -p .git/hooks"),
		recBash("Entering. ", "cd .git"), recBash("Writing. ", "echo x > hooks/pre-commit && pwd"), recText("Done.")}})
	return cases
}

func TestRecord(t *testing.T) {
	bin := os.Getenv("QODER_BIN")
	if bin == "" {
		t.Skip("QODER_BIN unset")
	}
	only := os.Getenv("CASE")
	for _, c := range recCases() {
		if only != "" && only != c.name {
			continue
		}
		t.Run(c.name, func(t *testing.T) { record(t, bin, c) })
	}
}

type recEnv struct {
	root, home, cwd, fake string
	env                   []string
}

func newRecEnv(t *testing.T, c recCase) recEnv {
	root := t.TempDir()
	e := recEnv{root: root, home: filepath.Join(root, "home"), cwd: filepath.Join(root, "project"), fake: filepath.Join(root, "fake.jsonl")}
	for _, d := range []string{filepath.Join(e.home, ".qoder"), e.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(e.home, ".qoder", "settings.json"): `{"security":{"auth":{"useExternal":true}}}`,
		e.fake: strings.Join(c.calls, "\n") + "\n",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.env = append(os.Environ(), "HOME="+e.home, "XDG_CONFIG_HOME="+filepath.Join(e.home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(e.home, ".local", "state"), "QODER_FAKE_STREAM_DELAY_MS=0")
	return e
}

// scrub replaces the temp paths, and the cwd as qodercli spells it in
// directory names ("/" as "-"), with the fixtures' /home/dev paths.
func (e recEnv) scrub(s string) string {
	return strings.NewReplacer(e.cwd, "/home/dev/project", strings.ReplaceAll(e.cwd, "/", "-"), "-home-dev-project",
		e.home, "/home/dev", e.root, "/home/dev").Replace(s)
}

func (e recEnv) waitFile(ctx context.Context, name string) bool {
	for ctx.Err() == nil {
		if _, err := os.Stat(filepath.Join(e.cwd, name)); err == nil {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func record(t *testing.T, bin string, c recCase) {
	e := newRecEnv(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var lines []string
	if c.acp {
		lines = recordACP(ctx, t, bin, e, c)
	} else {
		lines = recordStreamJSON(ctx, t, bin, e, c)
	}
	dir := filepath.Join("testdata", c.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stream.jsonl"), []byte(e.scrub(strings.Join(lines, ""))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordStreamJSON runs `qodercli -p` with the flags of the adapter's
// fallback (FallbackArgv) and keeps stdout up to the result line.
func recordStreamJSON(ctx context.Context, t *testing.T, bin string, e recEnv, c recCase) []string {
	args := FallbackArgv([]string{bin}, "Please help with the "+c.name+" case", "", adapters.SessionOptions{Cwd: e.cwd})
	args = append(args[1:len(args)-2], "--dangerously-skip-permissions", "--fake-responses", e.fake, "-p", args[len(args)-1])
	p, err := proc.Start(ctx, proc.Spec{Path: bin, Args: args, Dir: e.cwd, Env: e.env, StopSignal: syscall.SIGINT, Grace: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Stop() }()
	_ = p.Stdin.Close()
	if c.cancelFile != "" {
		go func() {
			if e.waitFile(ctx, c.cancelFile) {
				time.Sleep(time.Second)
				_ = p.Signal(syscall.SIGINT)
			}
		}()
	}
	var lines []string
	r := bufio.NewReaderSize(p.Stdout, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
		if strings.Contains(line, `"type":"result"`) {
			break // qodercli takes seconds more to exit; the result ends the run
		}
		if err != nil {
			t.Fatalf("stream ended without a result line: %v\n%s", err, p.StderrTail(20))
		}
	}
	t.Logf("%d lines", len(lines))
	return lines
}

// recordACP drives `qodercli --acp` through initialize, session/new and one
// session/prompt, keeping every line qodercli writes until the prompt's
// answer (qodercli does not exit on stdin EOF; it is stopped after).
func recordACP(ctx context.Context, t *testing.T, bin string, e recEnv, c recCase) []string {
	p, err := proc.Start(ctx, proc.Spec{Path: bin, Args: []string{"--acp", "--fake-responses", e.fake}, Dir: e.cwd, Env: e.env})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Stop() }()
	send := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		b, _ := json.Marshal(v)
		if _, err := p.Stdin.Write(append(b, '\n')); err != nil {
			t.Errorf("write to qodercli: %v", err)
		}
	}
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false}}})
	var lines []string
	sid := ""
	cancelled := false
	r := bufio.NewReaderSize(p.Stdout, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
			}
			_ = json.Unmarshal([]byte(line), &m)
			switch {
			case m.Method != "" && len(m.ID) > 0:
				send(map[string]any{"id": m.ID, "result": recAnswer(t, m.Method, m.Params, c.allow)})
			case string(m.ID) == "1":
				send(map[string]any{"id": 2, "method": "session/new", "params": map[string]any{"cwd": e.cwd, "mcpServers": []any{}}})
			case string(m.ID) == "2":
				var res struct {
					SessionID string `json:"sessionId"`
				}
				_ = json.Unmarshal(m.Result, &res)
				sid = res.SessionID
				send(map[string]any{"id": 3, "method": "session/prompt", "params": map[string]any{"sessionId": sid,
					"prompt": []any{map[string]any{"type": "text", "text": "Please help with the " + c.name + " case"}}}})
				if c.cancelFile != "" {
					go func() {
						if e.waitFile(ctx, c.cancelFile) {
							time.Sleep(time.Second)
							send(map[string]any{"method": "session/cancel", "params": map[string]any{"sessionId": sid}})
						}
					}()
				}
			case string(m.ID) == "3":
				t.Logf("%d lines", len(lines))
				return lines
			}
		}
		if err != nil {
			t.Fatalf("qodercli --acp ended before the prompt answer (cancelled=%v): %v\n%s", cancelled, err, p.StderrTail(20))
		}
	}
}

// recAnswer answers an agent-to-client request: permission requests with
// allow_once (or reject_once), anything else with an empty result.
func recAnswer(t *testing.T, method string, params json.RawMessage, allow bool) any {
	t.Logf("request %s", method)
	if method != "session/request_permission" {
		return map[string]any{}
	}
	var req struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	_ = json.Unmarshal(params, &req)
	want := "reject_once"
	if allow {
		want = "allow_once"
	}
	for _, o := range req.Options {
		if o.Kind == want {
			return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}}
		}
	}
	return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}
}
