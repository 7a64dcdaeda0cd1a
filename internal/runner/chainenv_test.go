package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/delegation"
	"github.com/hubdev/hub/personas"
)

// hub run's agent hears the delegation chain it roots (EnvChain), as a
// delegate does: a hub mcp its own configuration starts (a user's
// claude or gemini settings list one) reads the persona back by name, so
// the persona's plan mode and delegates list bind that hub mcp's
// delegates, and a delegation back to the persona is a loop.
func TestRun_AgentHearsTheChainItRoots(t *testing.T) {
	backend := replay.New(filepath.Join("testdata", "replay", "ok.jsonl"))
	reg := adapters.NewRegistry()
	reg.Register(&personas.Adapter{P: personas.Persona{Name: "planner", Description: "d", Mode: personas.ModePlan, Delegates: []string{"helper"}, Trusted: true},
		Backend: backend})
	var out, errb bytes.Buffer
	s := Run(context.Background(), Options{Registry: reg, Agent: "planner", Cwd: t.TempDir(), Prompt: "go", Format: FormatText,
		Approve: conversation.ApproveNone, Stdout: &out, Stderr: &errb, Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
	starts := backend.Starts()
	if s.ExitCode != conversation.ExitOK || len(starts) != 1 {
		t.Fatalf("exit %d, %d starts\nstderr: %s", s.ExitCode, len(starts), errb.String())
	}
	if chain := starts[0].Env[delegation.EnvChain]; chain != "planner" {
		t.Fatalf("the agent's %s is %q; want the persona it runs", delegation.EnvChain, chain)
	}
}
