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
	w, err := transcript.Open(config.TranscriptDir(), transcript.Meta{ID: "native-1", Agent: "local"}, nil)
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
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() {
		code := realMain(context.Background(), []string{"acp", "--agent", "replay"}, inR, outW, io.Discard)
		outW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(outR)
	call := func(id int, method string, params any) json.RawMessage {
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(req, '\n')); err != nil {
			t.Fatal(err)
		}
		for lines.Scan() {
			var resp struct {
				ID     *int
				Result json.RawMessage
				Error  json.RawMessage
			}
			if json.Unmarshal(lines.Bytes(), &resp) == nil && resp.ID != nil && *resp.ID == id {
				if resp.Error != nil {
					t.Fatalf("%s: %s", method, resp.Error)
				}
				return resp.Result
			}
		}
		t.Fatalf("%s: hub acp ended without answering", method)
		return nil
	}
	call(1, "initialize", map[string]any{"protocolVersion": 1})
	var sess struct{ SessionID string }
	_ = json.Unmarshal(call(2, "session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}), &sess)
	call(3, "session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": []any{map[string]any{"type": "text", "text": prompt}}})
	inW.Close()
	go io.Copy(io.Discard, outR)
	if code := <-done; code != exitOK {
		t.Fatalf("hub acp exit %d", code)
	}
	return sess.SessionID
}
