package gemini

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// GeminiDecoder decodes `gemini -o stream-json` lines, the fallback channel.
type GeminiDecoder struct{}

type geminiLine struct {
	Type       string          `json:"type"`
	SessionID  string          `json:"session_id"`
	Model      string          `json:"model"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolName   string          `json:"tool_name"`
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
	Status     string          `json:"status"`
	Output     *string         `json:"output"`
	Severity   string          `json:"severity"`
	Message    string          `json:"message"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Stats *struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
		Cached       int64 `json:"cached"`
	} `json:"stats"`
}

func NewGeminiDecoder() *GeminiDecoder { return &GeminiDecoder{} }

func (d *GeminiDecoder) Decode(line []byte) []adapters.Event {
	return adapters.DecodeJSON(line, invalidSource, d.line)
}

func (d *GeminiDecoder) line(l *geminiLine, line []byte) []adapters.Event {
	switch l.Type {
	case "init":
		return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: l.SessionID, Model: l.Model}}}
	case "message":
		if l.Role == "user" {
			return nil // echo of the prompt
		}
		return []adapters.Event{{Type: adapters.EventText, Text: l.Content}}
	case "tool_use":
		return d.toolUse(l)
	case "tool_result":
		return d.toolResult(l)
	case "error":
		return []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{
			Message: adapters.OneLine(l.Message), Code: adapters.CodeProvider, Fatal: l.Severity == "fatal"}}}
	case "result":
		return d.result(l)
	}
	return []adapters.Event{adapters.RawEvent("gemini:"+l.Type, line)}
}

func (d *GeminiDecoder) toolUse(l *geminiLine) []adapters.Event {
	title := geminiParam(l.Parameters, "command", "file_path", "absolute_path", "pattern", "query", "url", "dir_path", "path")
	t := &adapters.ToolCall{ID: l.ToolID, Name: l.ToolName, Title: cmp.Or(title, l.ToolName),
		Kind: cmp.Or(geminiKinds[l.ToolName], adapters.KindOther), Status: adapters.StatusInProgress, RawInput: adapters.RawOrNil(l.Parameters)}
	if p := geminiParam(l.Parameters, "file_path", "absolute_path", "path", "dir_path"); p != "" {
		t.Locations = []adapters.Location{{Path: p}}
	}
	return []adapters.Event{{Type: adapters.EventToolCall, Tool: t}}
}

func (d *GeminiDecoder) toolResult(l *geminiLine) []adapters.Event {
	t := &adapters.ToolCall{ID: l.ToolID, Status: adapters.StatusCompleted}
	text := ""
	if l.Output != nil {
		text = *l.Output
		t.RawOutput, _ = json.Marshal(map[string]string{"output": text})
	}
	if l.Status == "error" {
		t.Status = adapters.StatusFailed
		if l.Error != nil {
			text = l.Error.Message
			t.RawOutput, _ = json.Marshal(l.Error)
		}
	}
	if text != "" {
		t.Content = []adapters.ToolContent{{Type: adapters.ToolContentText, Text: text}}
	}
	return []adapters.Event{{Type: adapters.EventToolUpdate, Tool: t}}
}

func (d *GeminiDecoder) result(l *geminiLine) []adapters.Event {
	var out []adapters.Event
	if l.Stats != nil {
		out = append(out, adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{
			InputTokens: l.Stats.InputTokens, OutputTokens: l.Stats.OutputTokens, CacheReadTokens: l.Stats.Cached}})
	}
	if l.Status == "error" {
		msg := "gemini reported an error"
		code := adapters.CodeProvider
		if l.Error != nil {
			msg = cmp.Or(adapters.OneLine(l.Error.Message), msg)
			if strings.Contains(strings.ToLower(l.Error.Type), "auth") {
				code = adapters.CodeAuth
			}
		}
		out = append(out, adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: msg, Code: code, Fatal: true}})
	}
	return append(out, adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn})
}

// geminiKinds are the ACP tool kinds of gemini-cli's built-in tools.
var geminiKinds = map[string]adapters.ToolKind{"run_shell_command": adapters.KindExecute,
	"read_file": adapters.KindRead, "read_many_files": adapters.KindRead,
	"write_file": adapters.KindEdit, "replace": adapters.KindEdit, "edit": adapters.KindEdit,
	"glob": adapters.KindSearch, "grep_search": adapters.KindSearch, "search_file_content": adapters.KindSearch, "list_directory": adapters.KindSearch,
	"web_fetch": adapters.KindFetch, "google_web_search": adapters.KindFetch,
	"enter_plan_mode": adapters.KindSwitchMode, "exit_plan_mode": adapters.KindSwitchMode}

// geminiParam returns the first string parameter among keys.
func geminiParam(params json.RawMessage, keys ...string) string {
	var m map[string]json.RawMessage
	if len(params) == 0 || adapters.Unmarshal(params, &m) != nil {
		return ""
	}
	for _, k := range keys {
		var s string
		if adapters.Unmarshal(m[k], &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
