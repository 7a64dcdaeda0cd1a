package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/transcript"
)

// A conversation recorded by hub run, by hub acp and by the native loop
// is listed, shown and exported alike: one record, one exporter.
func TestSessions_EveryFrontEndsRecordExportsAlike(t *testing.T) {
	isolate(t)
	script := filepath.Join(t.TempDir(), "script.jsonl")
	steps := `{"event":{"type":"session_info","session":{"agentSessionId":"run-1"}}}` + "\n" + `{"event":{"type":"text","text":"answer one"}}` + "\n"
	if err := os.WriteFile(script, []byte(steps), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HUB_REPLAY_SCRIPT", script)
	if code, _, errOut := hub(t, nil, "run", "--agent", "replay", "question one"); code != exitOK {
		t.Fatalf("hub run: %d %s", code, errOut)
	}
	t.Setenv("HUB_REPLAY_SCRIPT", "") // the replay agent echoes "question two"
	acpID := acpTurn(t, "question two")
	w, err := transcript.Open(config.TranscriptDir(), transcript.Meta{ID: "native-1", Agent: "local"})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(transcript.Record{Type: transcript.TypeMessage, Message: json.RawMessage(`{"role":"user","content":"question three"}`)})
	w.Write(transcript.Record{Type: transcript.TypeMessage, Message: json.RawMessage(`{"role":"assistant","content":"answer three"}`)})
	w.Close()

	_, list, _ := hub(t, nil, "sessions", "list")
	tests := []struct{ name, id, agent, request, answer string }{
		{"hub run", "run-1", "replay", "question one", "answer one"},
		{"hub acp", acpID, "replay", "question two", "question two"},
		{"native loop", "native-1", "local", "question three", "answer three"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(list, tt.id) {
				t.Fatalf("hub sessions list lacks %s:\n%s", tt.id, list)
			}
			want := fmt.Sprintf("Agent: %s · cwd: ", tt.agent) + "*## User\n\n" + tt.request + "\n*## " + tt.agent + "\n\n" + tt.answer
			for _, args := range [][]string{{"sessions", "show", tt.id}, {"sessions", "export", tt.id, "--format", "md"}} {
				code, out, errOut := hub(t, nil, args...)
				if code != exitOK || !containsInOrder(out, strings.Split(want, "*")) {
					t.Fatalf("%v: exit %d %s, want %q in order:\n%s", args, code, errOut, want, out)
				}
			}
			code, out, _ := hub(t, nil, "sessions", "export", tt.id, "--format", "json")
			var recs []transcript.Record
			if err := json.Unmarshal([]byte(out), &recs); code != exitOK || err != nil || len(recs) < 2 || recs[0].Session == nil || recs[0].Session.Agent != tt.agent {
				t.Fatalf("export json: exit %d, %v:\n%s", code, err, out)
			}
		})
	}
}

func containsInOrder(s string, parts []string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

// acpTurn runs one turn of a new session through hub acp on stdio and
// returns the session's id.
func acpTurn(t *testing.T, prompt string) string {
	t.Helper()
	c := startACP(t, "--agent", "replay")
	c.must("initialize", map[string]any{"protocolVersion": 1})
	var sess struct{ SessionID string }
	_ = json.Unmarshal(c.must("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}), &sess)
	c.must("session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": []any{map[string]any{"type": "text", "text": prompt}}})
	if code := c.stop(); code != exitOK {
		t.Fatalf("hub acp exit %d", code)
	}
	return sess.SessionID
}

// acpStdio is an editor talking to 'hub acp' over stdio, one request at a
// time.
type acpStdio struct {
	t     *testing.T
	in    *io.PipeWriter
	out   *io.PipeReader
	lines *bufio.Scanner
	done  chan int
	id    int
}

func startACP(t *testing.T, args ...string) *acpStdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &acpStdio{t: t, in: inW, out: outR, lines: bufio.NewScanner(outR), done: make(chan int, 1)}
	c.lines.Buffer(nil, 1<<20)
	go func() {
		code := realMain(context.Background(), append([]string{"acp"}, args...), inR, outW, io.Discard)
		outW.Close()
		c.done <- code
	}()
	return c
}

// call sends a request and returns its result, or its error object.
func (c *acpStdio) call(method string, params any) (result, errObj json.RawMessage) {
	c.t.Helper()
	c.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.in.Write(append(req, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for c.lines.Scan() {
		var resp struct {
			ID     *int
			Result json.RawMessage
			Error  json.RawMessage
		}
		if json.Unmarshal(c.lines.Bytes(), &resp) == nil && resp.ID != nil && *resp.ID == c.id {
			return resp.Result, resp.Error
		}
	}
	c.t.Fatalf("%s: hub acp ended without answering", method)
	return nil, nil
}

func (c *acpStdio) must(method string, params any) json.RawMessage {
	c.t.Helper()
	res, errObj := c.call(method, params)
	if errObj != nil {
		c.t.Fatalf("%s: %s", method, errObj)
	}
	return res
}

// stop closes the editor's side and returns hub's exit code.
func (c *acpStdio) stop() int {
	c.in.Close()
	go io.Copy(io.Discard, c.out)
	return <-c.done
}
