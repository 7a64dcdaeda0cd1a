package claude

import (
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// toolsByKind are claude's built-in tools by the kind hub judges them as.
var toolsByKind = map[adapters.ToolKind][]string{
	adapters.KindRead:    {"Read", "NotebookRead"},
	adapters.KindSearch:  {"Grep", "Glob", "LS"},
	adapters.KindEdit:    {"Edit", "MultiEdit", "Write", "NotebookEdit"},
	adapters.KindExecute: {"Bash", "BashOutput", "KillShell"},
	adapters.KindFetch:   {"WebFetch", "WebSearch"},
}

// movingTools move where claude's later calls run (into a git worktree); their
// permission requests never say where, so hub would read them in the session's
// directory. claude's own blockWritesOutsideWorkingDirectories takes them away too.
var movingTools = []string{"EnterWorktree", "ExitWorktree"}

// disallowedTools are claude's tools a session's filter takes away. --allowed-tools is
// never used: it would let those tools run without the permission request hub's gate
// answers.
func disallowedTools(f *adapters.ToolFilter) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, kind := range []adapters.ToolKind{adapters.KindRead, adapters.KindSearch, adapters.KindEdit, adapters.KindExecute, adapters.KindFetch} {
		for _, name := range toolsByKind[kind] {
			if !f.Permits(name, kind) {
				out = append(out, name)
			}
		}
	}
	for _, d := range f.Deny { // a name of claude's own (an MCP tool) hub has no kind for
		if !adapters.IsKind(d) && !slices.ContainsFunc(out, func(s string) bool { return strings.EqualFold(s, d) }) {
			out = append(out, d)
		}
	}
	return out
}
