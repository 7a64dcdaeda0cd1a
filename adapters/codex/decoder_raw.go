package codex

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// codex 0.169's app-server sends no item for a command its sandbox refused
// (a write outside the workspace, bwrap failing to start): the model gets the
// failure, the client nothing. hub opts into experimentalRawEvents and turns
// the output of a shell call no item announced into a tool call of its own.

// codexShellTools are the function names codex runs commands with.
var codexShellTools = map[string]bool{"exec_command": true, "shell": true, "shell_command": true, "local_shell": true}

// rawItem handles rawResponseItem/completed; it is never passed on raw.
func (d *CodexDecoder) rawItem(params json.RawMessage) ([]adapters.Event, bool) {
	var p struct {
		Item struct {
			Type      string          `json:"type"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Output    json.RawMessage `json:"output"`
		} `json:"item"`
	}
	if adapters.Unmarshal(params, &p) != nil {
		return nil, true
	}
	it := p.Item
	switch it.Type {
	case "function_call":
		if codexShellTools[it.Name] {
			d.rawCalls[it.CallID] = it.Arguments
		}
	case "function_call_output":
		args, ok := d.rawCalls[it.CallID]
		delete(d.rawCalls, it.CallID)
		if _, seen := d.started[it.CallID]; ok && !seen {
			return []adapters.Event{{Type: adapters.EventToolCall, Tool: unannouncedCommand(it.CallID, args, rawOutputText(it.Output))}}, true
		}
	}
	return nil, true
}

// unannouncedCommand is the tool call of a shell call codex ran without an
// item (args are the model's): failed unless it exited 0.
func unannouncedCommand(id, args, output string) *adapters.ToolCall {
	cmd := rawCommand(args)
	status := adapters.StatusFailed
	if m := exitCodeLine.FindStringSubmatch(output); m != nil {
		if code, err := strconv.Atoi(m[1]); err == nil && code == 0 {
			status = adapters.StatusCompleted
		}
	}
	out, _ := json.Marshal(struct {
		Output string `json:"output"`
	}{codexTail(output)})
	return &adapters.ToolCall{ID: id, Name: "shell", Kind: adapters.KindExecute, Title: cmd, Status: status,
		RawInput: codexCommandJSON(cmd, ""), RawOutput: out,
		Content: []adapters.ToolContent{{Type: adapters.ToolContentText, Text: codexTail(output)}}}
}

// rawCommand reads the command of exec_command ({"cmd": "..."}) or of the
// shell tools ({"command": [...]} or a string).
func rawCommand(args string) string {
	var a struct {
		Cmd     string          `json:"cmd"`
		Command json.RawMessage `json:"command"`
	}
	if adapters.Unmarshal([]byte(args), &a) != nil {
		return args
	}
	if a.Cmd != "" {
		return a.Cmd
	}
	var argv []string
	if adapters.Unmarshal(a.Command, &argv) == nil {
		return strings.Join(argv, " ")
	}
	var s string
	if adapters.Unmarshal(a.Command, &s) == nil {
		return s
	}
	return args
}

// rawOutputText is a function_call_output's output: a string, or content items.
func rawOutputText(raw json.RawMessage) string {
	var s string
	if adapters.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = adapters.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

var exitCodeLine = regexp.MustCompile(`(?m)^Process exited with code (-?\d+)`)
