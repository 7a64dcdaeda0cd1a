package claude

import (
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// A session's tool filter takes claude's other tools away with
// --disallowed-tools; --allowed-tools, which would skip hub's gate, is
// never passed.
func TestArgs_ToolFilterBecomesDisallowedTools(t *testing.T) {
	a := New(config.AgentConfig{}, zerolog.Nop())
	tests := []struct {
		name   string
		filter *adapters.ToolFilter
		want   string // "" : no flag
	}{
		{"no filter", nil, "EnterWorktree,ExitWorktree"},
		{"read and search", &adapters.ToolFilter{Allow: []string{"read", "search"}},
			"Edit,MultiEdit,Write,NotebookEdit,Bash,BashOutput,KillShell,WebFetch,WebSearch,EnterWorktree,ExitWorktree"},
		{"read-only mode", &adapters.ToolFilter{Deny: []string{"edit", "delete", "move", "execute", "mcp__gh__merge"}},
			"Edit,MultiEdit,Write,NotebookEdit,Bash,BashOutput,KillShell,mcp__gh__merge,EnterWorktree,ExitWorktree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := a.args(adapters.SessionOptions{Tools: tt.filter})
			i := slices.Index(args, "--disallowed-tools")
			got := ""
			if i >= 0 {
				got = args[i+1]
			}
			if got != tt.want || slices.ContainsFunc(args, func(s string) bool { return strings.HasPrefix(s, "--allowed-tools") }) {
				t.Errorf("--disallowed-tools %q, want %q (args %q)", got, tt.want, args)
			}
		})
	}
}
