//go:build e2e

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

func TestSteering_ClaudeTakesInputMidTurn(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewAnthropicServer(
		mockllm.AnthropicTurn{Text: "Writing.", ToolUses: []mockllm.AnthropicToolUse{
			{ID: "toolu_s", Name: "Bash", Input: `{"command":"echo hi > f.txt","description":"write f.txt"}`}}},
		mockllm.AnthropicTurn{Text: "Done, with the steer."},
	)
	defer mock.Close()
	h := startHub(t, claudeHubConfig(t, mock), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)
	var outcome string
	steerDuringPermission(h, sid, "STEERED-MARKER use tabs", &outcome)
	stop, updates, err := h.prompt(sid, "write f.txt")
	if err != nil || stop != "end_turn" || outcome != "injected" {
		t.Fatalf("stop=%q err=%v steering=%q\n%s", stop, err, outcome, e2eTail(h.stderr(), 30))
	}
	if got := claudeChunkText(updates); !strings.Contains(got, "Done, with the steer.") {
		t.Errorf("turn text %q lacks the answer after the steer", got)
	}
	reqs := mock.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "STEERED-MARKER") {
		t.Fatalf("the steered text did not reach claude's next request (%d requests)", len(reqs))
	}
	h.close()
}

func TestSteering_CodexTakesInputMidTurn(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Writing.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_s", "echo hi > f.txt")}},
		mockllm.ResponsesTurn{Text: "Done, with the steer."},
	)
	defer mock.Close()
	h := startHub(t, codexHubConfig(t, mock), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)
	var outcome string
	steerDuringPermission(h, sid, "STEERED-MARKER use tabs", &outcome)
	stop, updates, err := h.prompt(sid, "write f.txt")
	if err != nil || stop != "end_turn" || outcome != "injected" {
		t.Fatalf("stop=%q err=%v steering=%q\n%s", stop, err, outcome, e2eTail(h.stderr(), 30))
	}
	if got := claudeChunkText(updates); !strings.Contains(got, "Done, with the steer.") {
		t.Errorf("turn text %q lacks the answer after the steer", got)
	}
	reqs := mock.Requests()
	if len(reqs) < 2 || !codexInputHas(reqs[len(reqs)-1], "STEERED-MARKER") {
		t.Fatalf("the steered text did not reach codex's next request (%d requests)", len(reqs))
	}
	h.close()
}
