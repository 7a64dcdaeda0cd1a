package runner

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/bestof"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// started records the options each agent started with, by its name.
type started struct {
	adapters.Adapter
	name string
	mu   *sync.Mutex
	opts map[string]adapters.SessionOptions
}

func (a started) Name() string { return a.name }
func (a started) Start(ctx context.Context, o adapters.SessionOptions) (adapters.Session, error) {
	a.mu.Lock()
	a.opts[a.name] = o
	a.mu.Unlock()
	return a.Adapter.Start(ctx, o)
}

// A candidate's agent starts on the model best of N gives it (the one of
// its agent), whichever front end starts it, never on a model named for
// another agent (hub run's --model with the options; /compare's
// session model), and with the MCP servers it was given.
func TestCandidate_StartsOnTheModelOfItsAgent(t *testing.T) {
	for _, tt := range []struct {
		name string
		run  func(*adapters.Registry) func(context.Context, bestof.CandidateRun) bestof.CandidateResult
	}{
		{"hub run --agents", func(reg *adapters.Registry) func(context.Context, bestof.CandidateRun) bestof.CandidateResult {
			return Options{Registry: reg, Approve: conversation.ApproveAll, Model: "replay-smart"}.RunCandidate
		}},
		{"/compare", func(*adapters.Registry) func(context.Context, bestof.CandidateRun) bestof.CandidateResult {
			return Candidate
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			opts := map[string]adapters.SessionOptions{}
			reg := adapters.NewRegistry()
			for _, name := range []string{"replay", "other"} {
				reg.Register(started{replay.New(""), name, &mu, opts})
			}
			c := candidate(reg, gitRepo(t), "hi")
			c.MCPServers = []adapters.MCPServer{{Name: "db", Type: "stdio", Command: "db-server"}}
			bestof.Run(context.Background(), bestof.Options{Candidate: c, Run: tt.run(reg), Agents: []string{"replay", "other"},
				Models: map[string]string{"replay": "replay-fast"}, StopAll: func() {}})
			mu.Lock()
			defer mu.Unlock()
			for name, model := range map[string]string{"replay": "replay-fast", "other": ""} {
				if o := opts[name]; o.Model != model || len(o.MCPServers) != 1 {
					t.Errorf("%s started on model %q with MCP servers %+v, want %q and db", name, o.Model, o.MCPServers, model)
				}
			}
		})
	}
}

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
