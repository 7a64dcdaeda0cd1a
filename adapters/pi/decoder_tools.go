package pi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// piKinds maps pi's built-in tools to ACP tool kinds; others are "other".
var piKinds = map[string]adapters.ToolKind{"read": adapters.KindRead, "write": adapters.KindEdit, "edit": adapters.KindEdit,
	"bash": adapters.KindExecute, "grep": adapters.KindSearch, "find": adapters.KindSearch, "ls": adapters.KindSearch}

// piArgs are the arguments of pi's built-in tools that hub shows.
type piArgs struct {
	Path    string  `json:"path"`
	Offset  int     `json:"offset"`
	Command string  `json:"command"`
	Pattern string  `json:"pattern"`
	Content *string `json:"content"`
	OldText *string `json:"oldText"`
	NewText *string `json:"newText"`
	Edits   []struct {
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	} `json:"edits"`
}

func piKind(name string) adapters.ToolKind { return cmp.Or(piKinds[name], adapters.KindOther) }

// announce emits the tool_call for a new id, or a status update for a known one.
func (d *PiDecoder) announce(id, name string, args json.RawMessage, status adapters.ToolStatus) []adapters.Event {
	if st, ok := d.tools[id]; ok {
		if len(st.args) == 0 && len(args) > 0 {
			d.tools[id] = piToolState{name: st.name, args: append(json.RawMessage(nil), args...)}
		}
		return []adapters.Event{{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: id, Status: status}}}
	}
	if d.tools == nil {
		d.tools = map[string]piToolState{}
	}
	args = bytes.Clone(args)
	if len(args) == 0 || string(args) == `""` {
		args = nil
	}
	d.tools[id] = piToolState{name: name, args: args}
	var a piArgs
	_ = adapters.Unmarshal(args, &a)
	tc := &adapters.ToolCall{ID: id, Name: name, Title: piTitle(name, a), Kind: piKind(name), Status: status,
		Locations: d.piLocations(name, a), Content: d.piDiffs(name, a), RawInput: args}
	return []adapters.Event{{Type: adapters.EventToolCall, Tool: tc}}
}

func piTitle(name string, a piArgs) string {
	switch name {
	case "bash":
		if a.Command != "" {
			return adapters.FirstLine(a.Command)
		}
	case "read", "write", "edit", "ls":
		if a.Path != "" {
			return strings.ToUpper(name[:1]) + name[1:] + " " + a.Path
		}
	case "grep", "find":
		if a.Pattern != "" {
			t := name + " " + a.Pattern
			if a.Path != "" {
				t += " in " + a.Path
			}
			return t
		}
	}
	return name
}

func (d *PiDecoder) piLocations(name string, a piArgs) []adapters.Location {
	if piKind(name) == adapters.KindOther || name == "bash" {
		return nil
	}
	path := a.Path
	if path == "" && piKind(name) == adapters.KindSearch {
		path = "." // grep, find and ls default to the cwd
	}
	p := d.absPath(path)
	if p == "" {
		return nil
	}
	loc := adapters.Location{Path: p}
	if name == "read" && a.Offset > 0 {
		loc.Line = a.Offset
	}
	return []adapters.Location{loc}
}

// piDiffs renders write and edit arguments as diffs (when the path resolves).
func (d *PiDecoder) piDiffs(name string, a piArgs) []adapters.ToolContent {
	p := d.absPath(a.Path)
	if p == "" {
		return nil
	}
	switch name {
	case "write":
		if a.Content != nil {
			return []adapters.ToolContent{{Type: adapters.ToolContentDiff, Path: p, NewText: *a.Content}}
		}
	case "edit":
		var out []adapters.ToolContent
		if a.OldText != nil && a.NewText != nil {
			out = append(out, adapters.EditDiff(p, *a.OldText, *a.NewText))
		}
		for _, e := range a.Edits {
			out = append(out, adapters.EditDiff(p, e.OldText, e.NewText))
		}
		return out
	}
	return nil
}

// piToolResult is a tool's result: MCP's content blocks.
type piToolResult struct {
	Content []adapters.ToolContent `json:"content"`
}

func (d *PiDecoder) toolStart(r *piRecord) []adapters.Event {
	if r.ToolCallID == "" {
		return nil
	}
	return d.announce(r.ToolCallID, r.ToolName, r.Args, adapters.StatusInProgress)
}

func (d *PiDecoder) toolUpdate(r *piRecord) []adapters.Event {
	var res piToolResult
	if r.ToolCallID == "" || r.PartialResult == nil || adapters.Unmarshal(r.PartialResult, &res) != nil {
		return nil
	}
	content := adapters.MCPContent(res.Content)
	if len(content) == 0 {
		return nil
	}
	return []adapters.Event{{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: r.ToolCallID, Content: content}}}
}

func (d *PiDecoder) toolEnd(r *piRecord) []adapters.Event {
	id := r.ToolCallID
	if id == "" {
		return nil
	}
	var out []adapters.Event
	if _, ok := d.tools[id]; !ok {
		out = d.announce(id, r.ToolName, r.Args, adapters.StatusInProgress)
	}
	var res piToolResult
	_ = adapters.Unmarshal(r.Result, &res)
	tc := &adapters.ToolCall{ID: id, Status: adapters.StatusCompleted, RawOutput: bytes.Clone(r.Result)}
	if st := d.tools[id]; r.IsError {
		tc.Status = adapters.StatusFailed
	} else if st.name == "write" || st.name == "edit" {
		var a piArgs
		_ = adapters.Unmarshal(st.args, &a)
		tc.Content = d.piDiffs(st.name, a)
	}
	tc.Content = append(tc.Content, adapters.MCPContent(res.Content)...)
	return append(out, adapters.Event{Type: adapters.EventToolUpdate, Tool: tc})
}
