package claude

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hubdev/hub/adapters"
)

type claudeToolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Path         string `json:"path"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	Content      string `json:"content"`
	Edits        []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	} `json:"edits"`
	Offset      int    `json:"offset"`
	Command     string `json:"command"`
	Description string `json:"description"`
	Pattern     string `json:"pattern"`
	URL         string `json:"url"`
	Query       string `json:"query"`
	Plan        string `json:"plan"`
	Skill       string `json:"skill"`
}

// ClaudeToolCall describes a Claude Code tool invocation for the editor: kind, a short
// title, touched files and, for edits, diffs.
func ClaudeToolCall(id, name string, input json.RawMessage) adapters.ToolCall {
	tc := adapters.ToolCall{ID: id, Name: name, Title: name, Kind: adapters.KindOther,
		Status: adapters.StatusPending, RawInput: append(json.RawMessage(nil), input...)}
	var in claudeToolInput
	_ = adapters.Unmarshal(input, &in)
	path := cmp.Or(in.FilePath, in.NotebookPath)
	switch name {
	case "Read":
		tc.Kind, tc.Title = adapters.KindRead, "Read "+path
		tc.Locations = claudeLocation(path, in.Offset)
	case "Edit", "MultiEdit":
		tc.Kind, tc.Title = adapters.KindEdit, "Edit "+path
		tc.Locations = claudeLocation(path, 0)
		tc.Content = claudeEditDiffs(path, &in)
	case "Write":
		tc.Kind, tc.Title = adapters.KindEdit, "Write "+path
		tc.Locations = claudeLocation(path, 0)
		tc.Content = []adapters.ToolContent{{Type: adapters.ToolContentDiff, Path: path, NewText: in.Content}}
	case "NotebookEdit":
		tc.Kind, tc.Title = adapters.KindEdit, "Edit notebook "+path
		tc.Locations = claudeLocation(path, 0)
	case "Bash", "BashOutput", "KillShell", "KillBash":
		tc.Kind, tc.Title = adapters.KindExecute, cmp.Or(in.Command, in.Description, name)
	case "Grep":
		tc.Kind, tc.Title = adapters.KindSearch, strings.TrimSpace("grep "+strconv.Quote(in.Pattern)+" "+in.Path)
	case "Glob":
		tc.Kind, tc.Title = adapters.KindSearch, strings.TrimSpace("Find "+in.Pattern+" "+in.Path)
	case "LS":
		tc.Kind, tc.Title = adapters.KindSearch, "List "+in.Path
	case "WebFetch":
		tc.Kind, tc.Title = adapters.KindFetch, "Fetch "+in.URL
	case "WebSearch":
		tc.Kind, tc.Title = adapters.KindFetch, "Search the web: "+in.Query
	case "Task", "Agent":
		tc.Kind, tc.Title = adapters.KindThink, cmp.Or(in.Description, "Run subagent")
	case "ExitPlanMode":
		tc.Kind, tc.Title = adapters.KindSwitchMode, "Ready to code?"
		if in.Plan != "" {
			tc.Content = []adapters.ToolContent{{Type: adapters.ToolContentText, Text: in.Plan}}
		}
	case "Skill":
		tc.Title = "Skill " + in.Skill
	default: // an MCP tool: mcp__<server>__<tool>
		rest, mcp := strings.CutPrefix(name, "mcp__")
		if server, tool, ok := strings.Cut(rest, "__"); mcp && ok {
			tc.Title = server + ": " + tool
		}
	}
	return tc
}

func claudeEditDiffs(path string, in *claudeToolInput) []adapters.ToolContent {
	if len(in.Edits) == 0 {
		return []adapters.ToolContent{adapters.EditDiff(path, in.OldString, in.NewString)}
	}
	out := make([]adapters.ToolContent, 0, len(in.Edits))
	for _, e := range in.Edits {
		out = append(out, adapters.EditDiff(path, e.OldString, e.NewString))
	}
	return out
}

func claudeLocation(path string, line int) []adapters.Location {
	if path == "" {
		return nil
	}
	return []adapters.Location{{Path: path, Line: line}}
}

// movesSubagent: an Agent (Task) call whose subagent runs in a worktree or folder of
// its own; "remote" runs nothing here.
func movesSubagent(name string, input []byte) bool {
	var in struct{ Isolation, Cwd string }
	if (name != "Agent" && name != "Task") || adapters.Unmarshal(input, &in) != nil {
		return false
	}
	return (in.Isolation != "" && in.Isolation != "remote") || in.Cwd != ""
}

// placeBound: what tc does depends on the directory it runs in (a command, a search, a
// relative or missing file); an MCP tool or web fetch does not.
func placeBound(tc adapters.ToolCall) bool {
	switch tc.Kind {
	case adapters.KindFetch:
		return false
	case adapters.KindRead, adapters.KindEdit:
		return len(tc.Locations) == 0 || slices.ContainsFunc(tc.Locations, func(l adapters.Location) bool { return !filepath.IsAbs(l.Path) })
	case adapters.KindOther, adapters.KindThink:
		return !strings.HasPrefix(tc.Name, "mcp__")
	}
	return true
}
