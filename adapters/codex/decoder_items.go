package codex

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// codexOutputLimit bounds the command output kept for tool updates.
const codexOutputLimit = 64 << 10

type codexItem struct {
	Type    string   `json:"type"`
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Status  string   `json:"status"`
	Summary []string `json:"summary"`
	Content []string `json:"content"`

	Command          string          `json:"command"`
	Cwd              string          `json:"cwd"`
	CommandActions   json.RawMessage `json:"commandActions"`
	AggregatedOutput *string         `json:"aggregatedOutput"`
	ExitCode         *int            `json:"exitCode"`

	Changes []codexChange `json:"changes"`

	Server       string                   `json:"server"`
	Tool         string                   `json:"tool"`
	Arguments    json.RawMessage          `json:"arguments"`
	Result       json.RawMessage          `json:"result"`
	Error        struct{ Message string } `json:"error"`
	ContentItems json.RawMessage          `json:"contentItems"`

	Query string `json:"query"`
	Path  string `json:"path"`
}

type codexChange struct {
	Path string          `json:"path"`
	Kind codexChangeKind `json:"kind"`
	Diff string          `json:"diff"`
}

// codexChangeKind is app-server's kind object or exec's plain string (its type).
type codexChangeKind struct {
	Type     string  `json:"type"`
	MovePath *string `json:"move_path"`
}

func (k *codexChangeKind) UnmarshalJSON(b []byte) error {
	type object codexChangeKind // without this method
	if adapters.Unmarshal(b, &k.Type) != nil {
		_ = adapters.Unmarshal(b, (*object)(k)) // a kind of neither shape stays empty; its change is still read
	}
	return nil
}

// codexItemPhase decodes item/started or item/completed.
func codexItemPhase(completed bool) codexDecode {
	return func(d *CodexDecoder, params json.RawMessage) ([]adapters.Event, bool) {
		var p struct {
			Item codexItem `json:"item"`
		}
		if adapters.Unmarshal(params, &p) != nil {
			return nil, false
		}
		return d.itemEvents(p.Item, completed)
	}
}

// itemEvents are the events of an item starting, changing or completing;
// exec's items come here under app-server's names.
func (d *CodexDecoder) itemEvents(it codexItem, completed bool) ([]adapters.Event, bool) {
	switch it.Type {
	case "userMessage", "hookPrompt":
		return nil, true
	case "contextCompaction":
		status := "in_progress"
		if completed {
			status = "completed"
		}
		return []adapters.Event{{Type: adapters.EventCompaction, Compaction: &adapters.Compaction{ID: it.ID, Status: status}}}, true
	case "agentMessage":
		return d.finalText(it, adapters.EventText, it.Text, completed), true
	case "reasoning": // exec's text, or app-server's summary and content
		text := cmp.Or(it.Text, strings.Join(append(it.Summary, it.Content...), "\n\n"))
		return d.finalText(it, adapters.EventThought, text, completed), true
	}
	tool, ok := d.tool(it)
	if !ok {
		return nil, false
	}
	if completed {
		delete(d.output, it.ID)
		delete(d.files, it.ID)
	} else if it.Type == "fileChange" && d.files != nil {
		d.files[it.ID] = *tool
	}
	return toolEvent(d.started, tool, completed), true
}

// toolEvent is a tool item's event: its call when it is not running
// (started is true until it completes), else an update.
func toolEvent(started map[string]bool, t *adapters.ToolCall, completed bool) []adapters.Event {
	first := !started[t.ID]
	started[t.ID] = !completed
	if first {
		return []adapters.Event{{Type: adapters.EventToolCall, Tool: t}}
	}
	upd := &adapters.ToolCall{ID: t.ID, Status: t.Status, Content: t.Content, RawOutput: t.RawOutput, Locations: t.Locations}
	return []adapters.Event{{Type: adapters.EventToolUpdate, Tool: upd}}
}

// finalText is a completed message that no deltas carried.
func (d *CodexDecoder) finalText(it codexItem, typ adapters.EventType, text string, completed bool) []adapters.Event {
	if !completed {
		return nil
	}
	streamed := d.streamed[it.ID]
	delete(d.streamed, it.ID)
	if streamed || text == "" {
		return nil
	}
	return []adapters.Event{{Type: typ, Text: text, MessageID: it.ID}}
}

func (d *CodexDecoder) tool(it codexItem) (*adapters.ToolCall, bool) {
	t := &adapters.ToolCall{ID: it.ID, Status: codexStatuses[it.Status]}
	switch it.Type {
	case "commandExecution":
		d.command(t, it)
	case "fileChange":
		t.Name, t.Kind = "apply_patch", adapters.KindEdit
		t.Title = codexChangeTitle(it.Changes)
		t.Locations, t.Content = d.changes(it.Changes)
		t.RawInput, _ = json.Marshal(map[string]any{"changes": it.Changes})
	case "mcpToolCall":
		t.Name, t.Kind = it.Server+"."+it.Tool, adapters.KindOther
		t.Title = it.Server + ": " + it.Tool
		t.RawInput = adapters.RawOrNil(it.Arguments)
		t.Content, t.RawOutput = codexMCPResult(it)
	case "dynamicToolCall":
		t.Name, t.Title, t.Kind = it.Tool, it.Tool, adapters.KindOther
		t.RawInput = adapters.RawOrNil(it.Arguments)
		t.RawOutput = adapters.RawOrNil(it.ContentItems)
	case "webSearch":
		t.Name, t.Kind, t.Title = "web_search", adapters.KindFetch, "Search the web: "+it.Query
		t.Status = cmp.Or(t.Status, adapters.StatusCompleted)
	case "imageView":
		t.Name, t.Kind, t.Title = "view_image", adapters.KindRead, "View "+it.Path
		t.Locations = []adapters.Location{{Path: d.abs(it.Path)}}
		t.Status = adapters.StatusCompleted
	default:
		return nil, false
	}
	return t, true
}

func (d *CodexDecoder) command(t *adapters.ToolCall, it codexItem) {
	t.Name, t.Kind = "shell", adapters.KindExecute
	t.Title = codexCommandTitle(it.Command, it.CommandActions)
	t.RawInput = codexCommandJSON(it.Command, it.Cwd)
	if it.AggregatedOutput != nil || it.ExitCode != nil {
		out := ""
		if it.AggregatedOutput != nil {
			out = *it.AggregatedOutput
		}
		if out != "" {
			t.Content = []adapters.ToolContent{{Type: adapters.ToolContentText, Text: codexTail(out)}}
		}
		t.RawOutput, _ = json.Marshal(struct {
			ExitCode *int   `json:"exitCode"`
			Output   string `json:"output"`
		}{it.ExitCode, codexTail(out)})
	}
}

// codexCommandJSON is {"command": cmd, "cwd": cwd}, without a cwd when
// codex names none (exec's items, unannounced calls).
func codexCommandJSON(cmd, cwd string) json.RawMessage {
	// A struct with fields in map key order: same bytes as a map, less work.
	b, _ := json.Marshal(struct {
		Command string `json:"command"`
		Cwd     string `json:"cwd,omitempty"`
	}{cmd, cwd})
	return b
}

func (d *CodexDecoder) outputDelta(params json.RawMessage) ([]adapters.Event, bool) {
	var p codexDelta
	if adapters.Unmarshal(params, &p) != nil {
		return nil, false
	}
	out := codexTail(d.output[p.ItemID] + p.Delta)
	d.output[p.ItemID] = out
	return []adapters.Event{{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{
		ID: p.ItemID, Content: []adapters.ToolContent{{Type: adapters.ToolContentText, Text: out}},
	}}}, true
}

func (d *CodexDecoder) patchUpdated(params json.RawMessage) ([]adapters.Event, bool) {
	var p struct {
		ItemID  string        `json:"itemId"`
		Changes []codexChange `json:"changes"`
	}
	if adapters.Unmarshal(params, &p) != nil {
		return nil, false
	}
	locs, content := d.changes(p.Changes)
	return []adapters.Event{{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: p.ItemID, Locations: locs, Content: content}}}, true
}

func codexTail(s string) string {
	if len(s) <= codexOutputLimit {
		return s
	}
	s = s[len(s)-codexOutputLimit:]
	for i := 0; i < len(s) && i < 4; i++ {
		if s[i]&0xC0 != 0x80 {
			return s[i:]
		}
	}
	return s
}

var codexStatuses = map[string]adapters.ToolStatus{"inProgress": adapters.StatusInProgress, "in_progress": adapters.StatusInProgress,
	"completed": adapters.StatusCompleted, "failed": adapters.StatusFailed, "declined": adapters.StatusFailed}

// codexCommandTitle prefers the parsed command over the shell wrapper.
func codexCommandTitle(command string, actions json.RawMessage) string {
	var acts []struct{ Command string }
	_ = adapters.Unmarshal(actions, &acts)
	var parts []string
	for _, a := range acts {
		if a.Command != "" {
			parts = append(parts, a.Command)
		}
	}
	return cmp.Or(strings.Join(parts, " && "), command)
}

func codexChangeTitle(changes []codexChange) string {
	if len(changes) == 0 {
		return "Edit files"
	}
	verb := cmp.Or(map[string]string{"add": "Create", "delete": "Delete"}[changes[0].Kind.Type], "Edit")
	title := verb + " " + filepath.Base(changes[0].Path)
	if len(changes) > 1 {
		title += fmt.Sprintf(" and %d more", len(changes)-1)
	}
	return title
}

func (d *CodexDecoder) abs(p string) string {
	abs, _ := adapters.AgentPath(d.Cwd, p) // "" when it cannot be resolved
	return cmp.Or(abs, p)
}

func (d *CodexDecoder) changes(changes []codexChange) ([]adapters.Location, []adapters.ToolContent) {
	var locs []adapters.Location
	var content []adapters.ToolContent
	for _, c := range changes {
		path := d.abs(c.Path)
		locs = append(locs, adapters.Location{Path: path})
		content = append(content, codexDiff(path, c))
		if c.Kind.MovePath != nil && *c.Kind.MovePath != "" {
			locs = append(locs, adapters.Location{Path: d.abs(*c.Kind.MovePath)})
		}
	}
	return locs, content
}

// codexDiff converts codex's per-file diff: whole content for add/delete,
// a unified diff for update (rebuilt into old/new hunk text).
func codexDiff(path string, c codexChange) adapters.ToolContent {
	tc := adapters.ToolContent{Type: adapters.ToolContentDiff, Path: path}
	switch c.Kind.Type {
	case "add":
		tc.NewText = c.Diff
	case "delete":
		tc.OldText = &c.Diff // c is codexDiff's own copy
	default:
		old, nw := codexUnified(c.Diff)
		tc.OldText, tc.NewText = &old, nw
	}
	return tc
}

func codexUnified(diff string) (old, nw string) {
	var o, n strings.Builder
	for _, l := range strings.SplitAfter(diff, "\n") {
		switch {
		case l == "", strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "\\"):
		case strings.HasPrefix(l, "@@"):
			if o.Len() > 0 || n.Len() > 0 {
				o.WriteString("...\n")
				n.WriteString("...\n")
			}
		case l[0] == '-':
			o.WriteString(l[1:])
		case l[0] == '+':
			n.WriteString(l[1:])
		case l[0] == ' ':
			o.WriteString(l[1:])
			n.WriteString(l[1:])
		default:
			o.WriteString(l)
			n.WriteString(l)
		}
	}
	return o.String(), n.String()
}

func codexMCPResult(it codexItem) ([]adapters.ToolContent, json.RawMessage) {
	if it.Error.Message != "" {
		return []adapters.ToolContent{{Type: adapters.ToolContentText, Text: it.Error.Message}}, adapters.RawOrNil(it.Result)
	}
	var r struct {
		Content []adapters.ToolContent `json:"content"`
	}
	if adapters.Unmarshal(it.Result, &r) != nil {
		return nil, nil
	}
	return adapters.MCPContent(r.Content), adapters.RawOrNil(it.Result)
}

// request turns approval requests into permission events; other server
// requests become raw events (the adapter answers them).
func (d *CodexDecoder) request(m CodexMessage, line []byte) []adapters.Event {
	var p struct {
		ItemID             string          `json:"itemId"`
		Command            string          `json:"command"`
		Cwd                *string         `json:"cwd"`
		Reason             *string         `json:"reason"`
		CommandActions     json.RawMessage `json:"commandActions"`
		AvailableDecisions []any           `json:"availableDecisions"`
		GrantRoot          string          `json:"grantRoot"`
		Kind               string          `json:"kind"`
	}
	if adapters.Unmarshal(m.Params, &p) != nil {
		return []adapters.Event{adapters.RawEvent("codex:request/"+m.Method, line)}
	}
	var tool adapters.ToolCall
	unnamed := false // a file change whose item/started hub has not seen
	switch m.Method {
	case CodexMethodCommandApproval:
		tool = adapters.ToolCall{ID: p.ItemID, Name: "shell", Kind: adapters.KindExecute,
			Title: codexCommandTitle(p.Command, p.CommandActions), Status: adapters.StatusPending}
		tool.RawInput, _ = json.Marshal(map[string]any{"command": p.Command, "cwd": p.Cwd, "reason": p.Reason})
	case CodexMethodFileApproval:
		tool = adapters.ToolCall{ID: p.ItemID, Name: "apply_patch", Kind: adapters.KindEdit,
			Title: "Apply file changes", Status: adapters.StatusPending}
		if p.Reason != nil && *p.Reason != "" {
			tool.Title += ": " + *p.Reason
		}
		f, ok := d.files[p.ItemID]
		unnamed = !ok
		tool.Locations, tool.Content, tool.RawInput = f.Locations, f.Content, f.RawInput
		if p.GrantRoot != "" {
			tool.Locations = append(tool.Locations, adapters.Location{Path: d.abs(p.GrantRoot)})
		}
	default:
		return []adapters.Event{adapters.RawEvent("codex:request/"+m.Method, line)}
	}
	req := adapters.NewPermissionRequest(tool, CodexPermissionOptions(p.AvailableDecisions))
	if p.Kind == "writeStdin" {
		req.MustAsk = "codex types into a running terminal: hub cannot tell where its shell stands or what it was told before"
	}
	if unnamed {
		req.MustAsk = "codex asks to change files it has not named: hub cannot check them against the deny list"
	}
	return []adapters.Event{{Type: adapters.EventPermission, Permission: req, Source: "codex:" + m.Method}}
}

// CodexPermissionOptions lists the choices for an approval request; option
// ids are the codex decisions they send. accept and decline are always
// offered; acceptForSession only when codex lists it (or lists nothing).
func CodexPermissionOptions(available []any) []adapters.PermissionOption {
	opts := []adapters.PermissionOption{{ID: "accept", Name: "Allow once", Kind: adapters.AllowOnce}}
	// Decisions that take arguments are objects, never equal to the string.
	if len(available) == 0 || slices.Contains(available, any("acceptForSession")) {
		opts = append(opts, adapters.PermissionOption{ID: "acceptForSession", Name: "Allow for this session", Kind: adapters.AllowAlways})
	}
	return append(opts, adapters.PermissionOption{ID: "decline", Name: "Reject", Kind: adapters.RejectOnce})
}

func CodexDecision(d adapters.PermissionDecision) string {
	if d.Cancelled {
		return "cancel"
	}
	return cmp.Or(map[adapters.PermissionOptionKind]string{adapters.AllowAlways: "acceptForSession", adapters.AllowOnce: "accept"}[d.Kind], "decline")
}
