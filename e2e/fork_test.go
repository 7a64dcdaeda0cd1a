//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

// forkOf sends session/fork for sid and returns the new session id.
func forkOf(t *testing.T, h *hubConn, sid, cwd string) string {
	t.Helper()
	res, err := h.call("session/fork", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}})
	if err != nil {
		t.Fatalf("session/fork: %v\n%s", err, e2eTail(h.stderr(), 30))
	}
	fid, _ := res["sessionId"].(string)
	if fid == "" || fid == sid {
		t.Fatalf("fork answered %v", res)
	}
	return fid
}

// The fork continues a copy of the agent's own session: its request holds
// the shared turn and its own, never the original's later turn, and the
// original's never holds the fork's.
func TestFork_ClaudeAndCodexForkTheirOwnSessions(t *testing.T) {
	type agentCase struct {
		name string
		cfg  func(t *testing.T) (string, func() []string)
	}
	bodies := func(raw [][]byte) []string {
		out := make([]string, len(raw))
		for i, b := range raw {
			out[i] = string(b)
		}
		return out
	}
	cases := []agentCase{
		{"claude", func(t *testing.T) (string, func() []string) {
			mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Shared."}, mockllm.AnthropicTurn{Text: "Fork answer."}, mockllm.AnthropicTurn{Text: "Original answer."})
			t.Cleanup(mock.Close)
			return claudeHubConfig(t, mock), func() []string {
				var raw [][]byte
				for _, r := range mock.Requests() {
					raw = append(raw, r.Body)
				}
				return bodies(raw)
			}
		}},
		{"codex", func(t *testing.T) (string, func() []string) {
			mock := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "Shared."}, mockllm.ResponsesTurn{Text: "Fork answer."}, mockllm.ResponsesTurn{Text: "Original answer."})
			t.Cleanup(mock.Close)
			return codexHubConfig(t, mock), func() []string {
				var raw [][]byte
				for _, r := range mock.Requests() {
					b, _ := json.Marshal(r.Input)
					raw = append(raw, b)
				}
				return bodies(raw)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, requests := c.cfg(t)
			h := startHub(t, cfg, nil)
			h.initialize(nil)
			cwd := t.TempDir()
			sid := h.newSession(cwd)
			if stop, _, err := h.prompt(sid, "SHARED-MARKER"); err != nil || stop != "end_turn" {
				t.Fatalf("shared turn: %q %v\n%s", stop, err, e2eTail(h.stderr(), 30))
			}
			fid := forkOf(t, h, sid, cwd)
			if stop, _, err := h.prompt(fid, "FORK-MARKER"); err != nil || stop != "end_turn" {
				t.Fatalf("fork turn: %q %v\n%s", stop, err, e2eTail(h.stderr(), 30))
			}
			if stop, _, err := h.prompt(sid, "ORIGINAL-MARKER"); err != nil || stop != "end_turn" {
				t.Fatalf("original turn: %q %v\n%s", stop, err, e2eTail(h.stderr(), 30))
			}
			reqs := requests()
			var forkReq, origReq string
			for _, r := range reqs {
				if strings.Contains(r, "FORK-MARKER") {
					forkReq = r
				}
				if strings.Contains(r, "ORIGINAL-MARKER") {
					origReq = r
				}
			}
			switch {
			case forkReq == "" || origReq == "":
				t.Fatalf("requests lack the fork's or the original's turn (%d requests)", len(reqs))
			case !strings.Contains(forkReq, "SHARED-MARKER") || strings.Contains(forkReq, "ORIGINAL-MARKER"):
				t.Errorf("the fork's request does not continue the shared session alone")
			case !strings.Contains(origReq, "SHARED-MARKER") || strings.Contains(origReq, "FORK-MARKER"):
				t.Errorf("the original's request holds the fork's turn: the fork touched the original session")
			case strings.Contains(forkReq, "conversation_so_far"):
				t.Errorf("an agent that forks its own session was briefed instead")
			}
			h.close()
		})
	}
}
