package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/bestof"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// A best of N candidate runs under the configured hooks whichever front
// end starts it: a blocking UserPromptSubmit hook keeps the prompt from
// a CLI agent in hub run --agents (hub run's options) as in /compare
// (Candidate).
func TestCandidate_HooksBlockThePrompt(t *testing.T) {
	h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("err:no secrets in prompts\n", "exit:2")}}})
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "replay", "tool.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	reg := adapters.NewRegistry()
	reg.Register(replay.New(script))
	tests := []struct {
		name  string
		run   func(context.Context, bestof.CandidateRun) bestof.CandidateResult
		hooks *hooks.Runner // the CandidateRun's
	}{
		{"hub run --agents", Options{Registry: reg, Approve: conversation.ApproveAll, Hooks: h}.RunCandidate, nil},
		{"/compare", Candidate, h},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := candidate(reg, gitRepo(t), "my key is sk-1")
			c.Hooks = tt.hooks
			s := bestof.Run(context.Background(), bestof.Options{Candidate: c, Run: tt.run, Agents: []string{replay.Name}, StopAll: func() {}})
			if len(s.Candidates) != 1 {
				t.Fatalf("summary %+v", s)
			}
			if got := s.Candidates[0]; got.ExitCode != conversation.ExitAgentError || !strings.Contains(got.Error, "no secrets in prompts") {
				t.Fatalf("candidate exit %d error %q, want the hook's refusal", got.ExitCode, got.Error)
			}
		})
	}
}
