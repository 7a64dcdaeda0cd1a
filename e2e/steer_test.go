//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
)

// steerDuringPermission answers the turn's permission request after
// steering text into the turn through _session/steering, and records the
// outcome.
func steerDuringPermission(h *hubConn, sid, text string, outcome *string) {
	h.setPermissionHandler(func(map[string]any) string {
		raw, err := h.await(h.start("_session/steering", map[string]any{"sessionId": sid,
			"prompt": []any{map[string]any{"type": "text", "text": text}}}), "_session/steering", time.Minute)
		var r struct{ Outcome string }
		if err == nil {
			_ = json.Unmarshal(raw, &r)
		}
		*outcome = r.Outcome
		return "allow_once"
	})
}

// Steering with real claude and codex: input sent while a tool waits for
// permission reaches the model's next request of the same turn, and the
// turn answers after it.
func TestSteering_RealAgentsTakeInputMidTurn(t *testing.T) {
	cases := []struct {
		name string
		// start scripts a turn with one tool call, then an answer, and
		// returns hub's config and whether the mock's last request holds s.
		start func(t *testing.T) (cfg string, lastHas func(s string) bool)
	}{
		{"claude", func(t *testing.T) (string, func(string) bool) {
			mock := mockllm.NewAnthropicServer(
				mockllm.AnthropicTurn{Text: "Writing.", ToolUses: []mockllm.AnthropicToolUse{
					{ID: "toolu_s", Name: "Bash", Input: `{"command":"echo hi > f.txt","description":"write f.txt"}`}}},
				mockllm.AnthropicTurn{Text: "Done, with the steer."})
			t.Cleanup(mock.Close)
			return claudeHubConfig(t, mock), func(s string) bool {
				reqs := mock.Requests()
				return len(reqs) == 2 && strings.Contains(string(reqs[1].Body), s)
			}
		}},
		{"codex", func(t *testing.T) (string, func(string) bool) {
			mock := mockllm.NewResponsesServer(
				mockllm.ResponsesTurn{Text: "Writing.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_s", "echo hi > f.txt")}},
				mockllm.ResponsesTurn{Text: "Done, with the steer."})
			t.Cleanup(mock.Close)
			return codexHubConfig(t, mock), func(s string) bool {
				reqs := mock.Requests()
				return len(reqs) >= 2 && codexInputHas(reqs[len(reqs)-1], s)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, lastHas := c.start(t)
			h := startHub(t, cfg, nil)
			h.initialize(nil)
			sid := h.newSession(t.TempDir())
			var outcome string
			steerDuringPermission(h, sid, "STEERED-MARKER use tabs", &outcome)
			stop, updates, err := h.prompt(sid, "write f.txt")
			if err != nil || stop != "end_turn" || outcome != "injected" {
				t.Fatalf("stop=%q err=%v steering=%q\n%s", stop, err, outcome, e2eTail(h.stderr(), 30))
			}
			if got := claudeChunkText(updates); !strings.Contains(got, "Done, with the steer.") {
				t.Errorf("turn text %q lacks the answer after the steer", got)
			}
			if !lastHas("STEERED-MARKER") {
				t.Fatal("the steered text did not reach the model's next request")
			}
			h.close()
		})
	}
}
