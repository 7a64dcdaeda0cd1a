package claude

import (
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
