//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

const e2eSchema = `{"type":"object","properties":{"verdict":{"type":"string","enum":["approve","reject"]}},"required":["verdict"],"additionalProperties":false}`

// e2eSchemaFile writes the schema where --output-schema reads it.
func e2eSchemaFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "review.json")
	if err := os.WriteFile(p, []byte(e2eSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A real claude gets the schema as --json-schema: the model is offered a
// StructuredOutput tool holding it, whose input hub prints as the answer;
// text that never matches gets hub's repair turn, then exit 10.
func TestRunClaude_OutputSchema(t *testing.T) {
	structured := func(v string) mockllm.AnthropicTurn {
		return mockllm.AnthropicTurn{Text: "Reviewing.", ToolUses: []mockllm.AnthropicToolUse{{Name: "StructuredOutput", Input: v}}}
	}
	prose := mockllm.AnthropicTurn{Text: "It looks fine."}
	tests := []struct {
		name  string
		turns []mockllm.AnthropicTurn
		code  int
		out   string
	}{
		{name: "valid", turns: []mockllm.AnthropicTurn{structured(`{"verdict":"approve"}`)}, out: `{"verdict":"approve"}` + "\n"},
		// claude asks its model once more for the tool, then ends with the
		// prose; hub's repair prompt gets the structured answer.
		{name: "repaired", turns: []mockllm.AnthropicTurn{prose, prose, structured(`{"verdict":"reject"}`)}, out: `{"verdict":"reject"}` + "\n"},
		{name: "invalid twice", turns: []mockllm.AnthropicTurn{prose, prose, prose, prose}, code: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mock := mockllm.NewAnthropicServer(tt.turns...)
			defer mock.Close()
			r := runHub(t, t.TempDir(), claudeHubConfig(t, mock), "", "--agent", "claude", "--cwd", t.TempDir(), "--output-schema", e2eSchemaFile(t), "review")
			if r.code != tt.code || (tt.out != "" && r.stdout != tt.out) {
				t.Fatalf("exit %d stdout %q, want exit %d stdout %q\n%s", r.code, r.stdout, tt.code, tt.out, e2eTail(r.stderr, 30))
			}
			if tt.code == 10 && !strings.Contains(r.stderr, "does not match --output-schema") {
				t.Errorf("stderr does not name the mismatch:\n%s", e2eTail(r.stderr, 10))
			}
			reqs := mock.Requests()
			var tool map[string]any
			for _, tl := range reqs[0].Tools {
				if tl["name"] == "StructuredOutput" {
					tool = tl
				}
			}
			got, _ := json.Marshal(tool["input_schema"])
			if !strings.Contains(string(got), `"enum":["approve","reject"]`) {
				t.Errorf("the model request offers no StructuredOutput tool with the schema: %s", got)
			}
			if len(reqs) != len(tt.turns) {
				t.Errorf("%d model requests, want %d", len(reqs), len(tt.turns))
			}
		})
	}
}

// A real codex gets the schema as turn/start's outputSchema (app-server)
// or --output-schema FILE (exec), which it sends as the request's
// json_schema text format; an invalid answer gets the repair turn on the
// same thread.
func TestRunCodex_OutputSchemaRepaired(t *testing.T) {
	for _, transport := range []string{"app-server", "exec"} {
		t.Run(transport, func(t *testing.T) { codexSchemaRepaired(t, transport) })
	}
}

func codexSchemaRepaired(t *testing.T, transport string) {
	mock := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "approve"}, mockllm.ResponsesTurn{Text: `{"verdict":"approve"}`})
	defer mock.Close()
	cfg := codexHubConfig(t, mock)
	if transport == "exec" {
		cfg = strings.Replace(cfg, "options = { ", `options = { transport = "exec", `, 1)
	}
	r := runHub(t, t.TempDir(), cfg, "", "--agent", "codex", "--cwd", t.TempDir(), "--format", "jsonl",
		"--output-schema", e2eSchemaFile(t), "review")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, e2eTail(r.stderr, 30))
	}
	if out, _ := json.Marshal(runSummary(t, r)["output"]); string(out) != `{"verdict":"approve"}` {
		t.Errorf("summary output %s", out)
	}
	reqs := mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	for i, req := range reqs {
		var body struct {
			Text struct {
				Format struct {
					Type   string          `json:"type"`
					Schema json.RawMessage `json:"schema"`
				} `json:"format"`
			} `json:"text"`
		}
		_ = json.Unmarshal(req.Body, &body)
		if body.Text.Format.Type != "json_schema" || !strings.Contains(string(body.Text.Format.Schema), `"approve","reject"`) {
			t.Errorf("request %d text.format %+v", i, body.Text.Format)
		}
	}
	if !codexInputHas(reqs[1], "review") || !codexInputHas(reqs[1], "Your answer did not match the schema") {
		t.Errorf("the repair turn did not continue the thread: %v", reqs[1].Input)
	}
}

// --append-system-prompt reaches the model request at system level:
// claude's system prompt, codex's developer instructions.
func TestRun_AppendSystemPromptReachesTheModel(t *testing.T) {
	const marker = "Answer in the voice of a lighthouse keeper."
	t.Run("claude", func(t *testing.T) {
		mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Aye."})
		defer mock.Close()
		r := runHub(t, t.TempDir(), claudeHubConfig(t, mock), "", "--agent", "claude", "--cwd", t.TempDir(), "--append-system-prompt", marker, "hi")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, e2eTail(r.stderr, 30))
		}
		req := mock.Requests()[0]
		var inUser bool
		for _, m := range req.Messages {
			if b, _ := json.Marshal(m["content"]); m["role"] == "user" && strings.Contains(string(b), marker) {
				inUser = true
			}
		}
		if !strings.Contains(string(req.Body), marker) || inUser {
			t.Errorf("the marker is not in the system prompt alone (in a user message: %v)", inUser)
		}
	})
	t.Run("codex", func(t *testing.T) {
		mock := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "Aye."})
		defer mock.Close()
		r := runHub(t, t.TempDir(), codexHubConfig(t, mock), "", "--agent", "codex", "--cwd", t.TempDir(), "--append-system-prompt", marker, "hi")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, e2eTail(r.stderr, 30))
		}
		var developer bool
		for _, item := range mock.Requests()[0].Input {
			if item["role"] == "developer" && strings.Contains(inputText(item), marker) {
				developer = true
			}
			if item["role"] == "user" && strings.Contains(inputText(item), marker) {
				t.Errorf("the marker is in a user message")
			}
		}
		if !developer {
			t.Errorf("no developer message carries the marker: %v", mock.Requests()[0].Input)
		}
	})
}

// --max-turns with claude is its own --max-turns (SessionOptions.MaxTurns):
// claude stops after the one allowed model request, exit 7.
func TestRunClaude_MaxTurns(t *testing.T) {
	read := mockllm.AnthropicTurn{Text: "Reading.", ToolUses: []mockllm.AnthropicToolUse{{Name: "Read", Input: `{"file_path":"notes.txt"}`}}}
	mock := mockllm.NewAnthropicServer(read, read, read)
	defer mock.Close()
	r := runHub(t, t.TempDir(), claudeHubConfig(t, mock), "", "--agent", "claude", "--cwd", t.TempDir(), "--max-turns", "1", "--format", "jsonl", "read")
	s := runSummary(t, r)
	if r.code != 7 || s["stopReason"] != "max_turn_requests" || s["budget"] != "turns" || len(mock.Requests()) != 1 {
		t.Fatalf("exit %d summary %v, %d requests\n%s", r.code, s, len(mock.Requests()), e2eTail(r.stderr, 30))
	}
}

// --max-turns with gemini (an ACP agent): the same counted tool rounds.
func TestRunGemini_MaxTurnsStopsALoop(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	var turns []mockllm.GeminiTurn
	for range 6 {
		turns = append(turns, geminiToolTurn())
	}
	mock := mockllm.NewGeminiServer(turns...)
	defer mock.Close()
	home := t.TempDir()
	geminiSettings(t, home)
	r := runHub(t, home, geminiHubCfg(bin, mock), "", "--agent", "gemini", "--cwd", t.TempDir(), "--approve", "all",
		"--max-turns", "2", "--format", "jsonl", "loop")
	s := runSummary(t, r)
	if r.code != 7 || s["stopReason"] != "max_turn_requests" || s["budget"] != "turns" {
		t.Fatalf("exit %d summary %v\n%s", r.code, s, e2eTail(r.stderr, 30))
	}
	if n := len(mock.Requests()); n < 3 || n >= len(turns) {
		t.Errorf("%d model requests: want the third round's stop, not the whole loop", n)
	}
}

// --max-turns with codex, which keeps no turn budget hub can set: hub
// counts its tool rounds and cancels a looping turn past the limit, exit
// 7 with stop reason max_turn_requests.
func TestRunCodex_MaxTurnsStopsALoop(t *testing.T) {
	var turns []mockllm.ResponsesTurn
	for i := range 6 {
		turns = append(turns, mockllm.ResponsesTurn{Text: "Again.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_"+string(rune('a'+i)), "echo loop")}})
	}
	mock := mockllm.NewResponsesServer(turns...)
	defer mock.Close()
	r := runHub(t, t.TempDir(), codexHubConfig(t, mock), "", "--agent", "codex", "--cwd", t.TempDir(), "--approve", "all",
		"--max-turns", "2", "--format", "jsonl", "loop")
	s := runSummary(t, r)
	if r.code != 7 || s["stopReason"] != "max_turn_requests" || s["budget"] != "turns" {
		t.Fatalf("exit %d summary %v\n%s", r.code, s, e2eTail(r.stderr, 30))
	}
	if n := len(mock.Requests()); n < 3 || n >= len(turns) {
		t.Errorf("%d model requests: want the third round's stop, not the whole loop", n)
	}
}
