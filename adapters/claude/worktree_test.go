package claude

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// claude's EnterWorktree and ExitWorktree move where its later Bash calls run
// (the Bash tool returns to the moved start folder), while their permission
// requests name no directory: hub takes them away, whatever the tool filter.
func TestArgs_WorktreeToolsAreDisallowed(t *testing.T) {
	a := New(config.AgentConfig{}, zerolog.Nop())
	for _, f := range []*adapters.ToolFilter{nil, {Allow: []string{"read"}}, {Deny: []string{"mcp__gh__merge"}}} {
		args := a.args(adapters.SessionOptions{Tools: f})
		i := slices.Index(args, "--disallowed-tools")
		if i < 0 || !slices.Contains(strings.Split(args[i+1], ","), "EnterWorktree") || !slices.Contains(strings.Split(args[i+1], ","), "ExitWorktree") {
			t.Errorf("filter %+v: args %q keep EnterWorktree or ExitWorktree", f, args)
		}
	}
}

// A subagent started in a worktree or folder of its own (isolation, cwd) runs its
// calls there, and its requests (agent_id set) do not say where: each that depends on
// the directory is asked every time, never covered by "always".
func TestDecodeClaude_IsolatedSubagentRequestsMustAsk(t *testing.T) {
	const (
		agentUse = `{"type":"assistant","message":{"id":"msg_a","role":"assistant","content":[{"type":"tool_use","id":"toolu_agent","name":"%s","input":%s}]}}`
		request  = `{"type":"control_request","request_id":"req_1","request":{"subtype":"can_use_tool","tool_name":"%s","tool_use_id":"toolu_b","input":%s%s}}`
		worktree = `{"description":"d","prompt":"p","isolation":"worktree"}`
		bash     = `{"command":"cat ../../../.env"}`
		sub      = `,"agent_id":"a1b2"`
	)
	abs, _ := filepath.Abs("f.go")
	absRead, _ := json.Marshal(map[string]string{"file_path": abs})
	tests := []struct {
		name              string
		agent, agentInput string // "" : no Agent call before the request
		tool, input       string
		agentID           string
		mustAsk           bool
	}{
		{"worktree subagent's command", "Agent", worktree, "Bash", bash, sub, true},
		{"command of a subagent with cwd", "Agent", `{"description":"d","prompt":"p","cwd":"/elsewhere"}`, "Bash", bash, sub, true},
		{"Task tool with isolation", "Task", worktree, "Bash", bash, sub, true},
		{"relative read", "Agent", worktree, "Read", `{"file_path":"src/a.go"}`, sub, true},
		{"search", "Agent", worktree, "Grep", `{"pattern":"x"}`, sub, true},
		{"absolute read", "Agent", worktree, "Read", string(absRead), sub, false},
		{"mcp tool", "Agent", worktree, "mcp__gh__issue", `{"path":"a"}`, sub, false},
		{"plain subagent", "Agent", `{"description":"d","prompt":"p"}`, "Bash", bash, sub, false},
		{"remote subagent", "Agent", `{"description":"d","prompt":"p","isolation":"remote"}`, "Bash", bash, sub, false},
		{"main session after a worktree subagent", "Agent", worktree, "Bash", bash, "", false},
		{"subagent, no Agent call seen", "", "", "Bash", bash, sub, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewClaudeDecoder()
			if tt.agent != "" {
				d.Decode(fmt.Appendf(nil, agentUse, tt.agent, tt.agentInput))
			}
			evs := d.Decode(fmt.Appendf(nil, request, tt.tool, tt.input, tt.agentID))
			if len(evs) != 1 || evs[0].Permission == nil {
				t.Fatalf("events %+v, want one permission request", evs)
			}
			if got := evs[0].Permission.MustAsk != ""; got != tt.mustAsk {
				t.Errorf("MustAsk %q, want set %v", evs[0].Permission.MustAsk, tt.mustAsk)
			}
		})
	}
}
