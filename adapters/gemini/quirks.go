package gemini

import (
	"encoding/json"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
)

// Quirks are gemini's departures from ACP: a prompt's token usage in the result's
// `_meta.quota`, and shell permission requests without a raw input (shellInput).
var Quirks = acpclient.Quirks{ResultUsage: quotaUsage, PermissionInput: shellInput}

func quotaUsage(result json.RawMessage) *adapters.Usage {
	var r struct {
		Meta struct {
			Quota *struct {
				TokenCount struct {
					InputTokens  int64 `json:"input_tokens"`
					OutputTokens int64 `json:"output_tokens"`
				} `json:"token_count"`
			} `json:"quota"`
		} `json:"_meta"`
	}
	if adapters.Unmarshal(result, &r) != nil || r.Meta.Quota == nil {
		return nil
	}
	tc := r.Meta.Quota.TokenCount
	if tc.InputTokens+tc.OutputTokens == 0 {
		return nil
	}
	return &adapters.Usage{InputTokens: tc.InputTokens, OutputTokens: tc.OutputTokens, ContextUsed: tc.InputTokens, ContextSize: contextWindow}
}

// contextWindow is that of the models gemini CLI runs (2.5 Pro and Flash, 3 Pro); the
// quota reports none.
const contextWindow = 1 << 20

// shellInput is where a shell command runs, read from gemini's permission
// request: it carries no raw input, its title is the command and its text
// starts "[in DIR]" when the call names a dir_path. A DIR may hold "]", so
// every reading is a directory hub judges the command in.
func shellInput(tool adapters.ToolCall) json.RawMessage {
	if tool.Kind != adapters.KindExecute {
		return nil
	}
	for _, c := range tool.Content {
		rest, ok := strings.CutPrefix(c.Text, "[in ")
		if c.Type != adapters.ToolContentText || !ok {
			continue
		}
		var dirs []map[string]string
		for i, r := range rest {
			if r == ']' {
				dirs = append(dirs, map[string]string{"cwd": rest[:i]})
			}
		}
		if len(dirs) == 0 {
			return nil
		}
		b, _ := json.Marshal(map[string]any{"command": tool.Title, "cwd": dirs[0]["cwd"], "readings": dirs[1:]})
		return b
	}
	return nil
}
