//go:build e2e && unix

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

// budgetLoop is a looping mock for one agent: every scripted turn calls a
// harmless tool, so only a budget ends the run before the script does.
type budgetLoop struct {
	agent    string
	cfg      func(t *testing.T) string // hub's config, pointing the agent at the mock
	offered  int                       // requests the script answers
	requests func() int                // requests the mock saw
	close    func()
}

const budgetTurns = 8

// claudeBudgetLoop: each Anthropic response reports 42 input and 17
// output tokens; with finish, the last turn answers instead of reading.
func claudeBudgetLoop(finish bool) budgetLoop {
	read := mockllm.AnthropicTurn{Text: "Reading.", ToolUses: []mockllm.AnthropicToolUse{{Name: "Read", Input: `{"file_path":"notes.txt"}`}}}
	var turns []mockllm.AnthropicTurn
	for range budgetTurns {
		turns = append(turns, read)
	}
	if finish {
		turns[len(turns)-1] = mockllm.AnthropicTurn{Text: "Done."}
	}
	mock := mockllm.NewAnthropicServer(turns...)
	return budgetLoop{agent: "claude", offered: len(turns), close: mock.Close,
		cfg:      func(t *testing.T) string { return claudeHubConfig(t, mock) },
		requests: func() int { return len(mock.Requests()) }}
}

// codexBudgetLoop: each Responses turn reports u.
func codexBudgetLoop(u mockllm.ResponsesUsage) budgetLoop {
	var turns []mockllm.ResponsesTurn
	for i := range budgetTurns {
		turns = append(turns, mockllm.ResponsesTurn{Text: "Reading.", Usage: &u,
			ToolCalls: []mockllm.ResponsesToolCall{codexExec(fmt.Sprintf("call_%d", i), "cat notes.txt")}})
	}
	mock := mockllm.NewResponsesServer(turns...)
	return budgetLoop{agent: "codex", offered: len(turns), close: mock.Close,
		cfg:      func(t *testing.T) string { return codexHubConfig(t, mock) },
		requests: func() int { return len(mock.Requests()) }}
}

// --max-tokens and --max-cost stop a real agent's looping turn: exit 7,
// stop reason max_tokens, the summary names the budget and keeps what
// arrived, and the mock saw fewer requests than its script offers.
// Mid-turn cost is the price table's (claude-sonnet-4-5, gpt-4.1-mini):
// claude reports its own cost only in its turn's result, which still
// stops a run on a model the table lacks (claude-haiku-4-5), uncut.
func TestRunBudget_StopsALoopingAgent(t *testing.T) {
	big := mockllm.ResponsesUsage{InputTokens: 100_000, OutputTokens: 1_000}
	for _, tc := range []struct {
		name, budget string
		loop         func() budgetLoop
		args         []string
		uncut        bool // the budget is known only when the turn ends
	}{
		{"claude tokens", "tokens", func() budgetLoop { return claudeBudgetLoop(false) }, []string{"--max-tokens", "100"}, false},
		{"codex tokens", "tokens", func() budgetLoop { return codexBudgetLoop(mockllm.ResponsesUsage{InputTokens: 20, OutputTokens: 10}) }, []string{"--max-tokens", "50"}, false},
		{"claude cost from the price table", "cost", func() budgetLoop { return claudeBudgetLoop(false) }, []string{"--model", "claude-sonnet-4-5", "--max-cost", "0.0005"}, false},
		{"codex cost", "cost", func() budgetLoop { return codexBudgetLoop(big) }, []string{"--model", "gpt-4.1-mini", "--max-cost", "0.05"}, false},
		{"claude cost from its own report", "cost", func() budgetLoop { return claudeBudgetLoop(true) }, []string{"--model", "claude-haiku-4-5", "--max-cost", "0.0005"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.loop()
			defer l.close()
			args := append([]string{"--agent", l.agent, "--cwd", t.TempDir(), "--approve", "all", "--format", "jsonl"}, tc.args...)
			r := runHub(t, t.TempDir(), l.cfg(t), "", append(args, "read notes.txt until told to stop")...)
			s := runSummary(t, r)
			if r.code != 7 || s["stopReason"] != "max_tokens" || s["budget"] != tc.budget {
				t.Fatalf("exit %d summary %v\n%s", r.code, s, e2eTail(r.stderr, 30))
			}
			switch n := l.requests(); {
			case tc.uncut && n != l.offered:
				t.Errorf("%d model requests of %d offered: want the whole turn", n, l.offered)
			case !tc.uncut && (n < 2 || n >= l.offered):
				t.Errorf("%d model requests of %d offered: want the loop cut after the budget passed", n, l.offered)
			}
			if u, _ := s["usage"].(map[string]any); u == nil || u["inputTokens"] == nil || !strings.Contains(runText(r), "Reading.") {
				t.Errorf("the summary or the output lost what arrived: usage %v, text %q", s["usage"], runText(r))
			}
		})
	}
}

// --max-cost for an agent that reports no cost and whose model has no
// price is a usage error (exit 2) before any model request.
func TestRunBudget_MaxCostWithoutAPriceIsAUsageError(t *testing.T) {
	for _, tc := range []struct {
		name string
		loop func() budgetLoop
		args []string
	}{
		{"codex unpriced model", func() budgetLoop { return codexBudgetLoop(mockllm.ResponsesUsage{InputTokens: 20, OutputTokens: 10}) },
			[]string{"--model", "mock-model", "--max-cost", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.loop()
			defer l.close()
			args := append([]string{"--agent", l.agent, "--cwd", t.TempDir(), "--format", "jsonl"}, tc.args...)
			r := runHub(t, t.TempDir(), l.cfg(t), "", append(args, "hi")...)
			if r.code != 2 || l.requests() != 0 {
				t.Fatalf("exit %d after %d model requests, want 2 before any\n%s", r.code, l.requests(), e2eTail(r.stderr, 30))
			}
		})
	}
}
