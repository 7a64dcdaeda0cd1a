package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai/tools"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/transcript"
)

// uiTextCap bounds tool output copied into tool updates for the editor.
const uiTextCap = 8 << 10

// runTool returns the text the model reads.
func (s *Session) runTool(ctx context.Context, tc toolCall, out *adapters.Turn) string {
	name, args := tc.Function.Name, json.RawMessage(tc.Function.Arguments)
	call := adapters.ToolCall{ID: tc.ID, Name: name, Title: name, Kind: tools.KindOf(name), Status: adapters.StatusPending}
	if name == "bash" {
		call.Shell = s.env.Shell() // hub reads its line as the shell that runs it
	}
	if json.Valid(args) {
		call.RawInput = args
	}
	p, err := s.prepare(name, args)
	if err != nil {
		call.Status, call.Content = adapters.StatusFailed, []adapters.ToolContent{textContent(err.Error())}
		out.Emit(adapters.Event{Type: adapters.EventToolCall, Tool: &call})
		return "error: " + err.Error()
	}
	call.Title, call.Locations = p.Title, p.Locations
	out.Emit(adapters.Event{Type: adapters.EventToolCall, Tool: &call})

	if msg, ok := s.permitted(ctx, call, args, out); !ok {
		return msg
	}
	return s.ran(ctx, call, p.Run(ctx, func(u adapters.ToolCall) {
		u.ID = call.ID
		out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: &u})
	}), out)
}

// prepare validates a call of delegate_agent, of an MCP server's tool (kind
// other, so asked unless a rule allows mcp__server__*) or of a built-in.
func (s *Session) prepare(name string, args json.RawMessage) (*tools.Prepared, error) {
	if name == delegateToolName && s.delegate != nil {
		return s.prepareDelegate(args)
	}
	if t, ok := s.mcp.tools[name]; ok {
		return &tools.Prepared{Title: t.server + ": " + t.tool,
			Run: func(ctx context.Context, _ func(adapters.ToolCall)) tools.Result { return t.call(ctx, args) }}, nil
	}
	return s.env.Prepare(name, args)
}

func (s *Session) ran(ctx context.Context, call adapters.ToolCall, res tools.Result, out *adapters.Turn) string {
	upd := &adapters.ToolCall{ID: call.ID, Status: adapters.StatusCompleted, Content: res.Content, Locations: res.Locations}
	if res.Failed {
		upd.Status = adapters.StatusFailed
	}
	if len(upd.Content) == 0 {
		upd.Content = []adapters.ToolContent{textContent(clip(res.Output, uiTextCap))}
	}
	out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: upd})
	in := toolInput(hooks.PostToolUse, call)
	in.Output, in.Status = res.Output, string(upd.Status)
	s.hook(ctx, in, out)
	return res.Output
}

// permitted has a call judged once, by the gate, after the doom loop
// check; the loop only refuses a tool it does not offer. A session without
// a gate asks the turn's reader every call, reads too: nothing runs unasked.
// msg is what the model reads when the call may not run.
func (s *Session) permitted(ctx context.Context, call adapters.ToolCall, args json.RawMessage, out *adapters.Turn) (msg string, ok bool) {
	if msg, ok := s.doomLoop(ctx, call, args, out); !ok {
		return msg, false
	}
	p := adapters.NewPermissionRequest(call, nil)
	p.Unasked = permission.ReadOnly(call.Kind)
	p.Hook = func(ctx context.Context) *adapters.Decision { return s.preToolUse(ctx, call, out) }
	var d adapters.PermissionDecision
	if s.permits(call.Name) {
		if d = out.Ask(ctx, p); d.By != "" { // the gate reported it
			s.record(call, d.Allowed(), d.By, d.Reason)
		}
	} else {
		_, mode := s.offered()
		d = adapters.PermissionDecision{Kind: adapters.RejectOnce, By: permission.ByRule,
			Reason: fmt.Sprintf("tool %s is not offered in this session (mode %q or the agent's tools)", call.Name, mode)}
		out.Emit(s.record(call, false, d.By, d.Reason))
	}
	switch why := cmp.Or(d.Reason, "the user rejected it"); {
	case d.Allowed():
		out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: call.ID, Status: adapters.StatusInProgress}})
		return "", true
	case d.Cancelled:
		fail(out, call.ID, "cancelled by the user")
		return "cancelled by the user", false
	default:
		fail(out, call.ID, "denied: "+why)
		return "Permission denied (" + why + "). Do not retry this call; choose another approach or ask the user.", false
	}
}

func (s *Session) record(call adapters.ToolCall, allowed bool, by, reason string) adapters.Event {
	ev := adapters.Event{Type: adapters.EventDecision, Decision: &adapters.Decision{ToolID: call.ID, Title: call.Title, Kind: call.Kind,
		Allowed: allowed, By: by, Reason: reason}}
	s.tr.Write(transcript.Record{Type: transcript.TypeEvent, Event: &ev})
	return ev
}

// doomLoop asks the user before the same call runs doomLoopRepeats times in
// a row. No rule, "always" answer or --approve lets the repetition go on
// (the gate answers it only where nobody can be asked: stop).
func (s *Session) doomLoop(ctx context.Context, call adapters.ToolCall, args json.RawMessage, out *adapters.Turn) (string, bool) {
	sig := call.Name + "\x00" + canonicalJSON(args)
	if sig == s.lastCall {
		s.repeats++
	} else {
		s.lastCall, s.repeats = sig, 1
	}
	if s.repeats < doomLoopRepeats {
		return "", true
	}
	ask := call
	ask.Title = "Repeated " + strconv.Itoa(s.repeats) + " times in a row: " + call.Title
	p := adapters.NewPermissionRequest(ask, []adapters.PermissionOption{
		{ID: "continue", Name: "Let it continue", Kind: adapters.AllowOnce},
		{ID: "stop", Name: "Stop the repetition", Kind: adapters.RejectOnce},
	})
	p.MustAsk, p.Repeated = "the same call repeated "+strconv.Itoa(s.repeats)+" times in a row", true
	d := out.Ask(ctx, p)
	s.repeats = 0
	if d.Allowed() {
		return "", true
	}
	fail(out, call.ID, "stopped: the same call repeated")
	stopped := "Stopped by the user"
	if d.By == "" && d.Reason != "" { // nobody was asked
		stopped = "Stopped (" + d.Reason + ")"
	}
	return stopped + ": you made this exact call with the same input " + strconv.Itoa(doomLoopRepeats) +
		" times in a row. Do not repeat it; try a different approach or explain what is blocking you.", false
}

func fail(out *adapters.Turn, id, why string) {
	out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: id, Status: adapters.StatusFailed,
		Content: []adapters.ToolContent{textContent(why)}}})
}

func textContent(s string) adapters.ToolContent {
	return adapters.ToolContent{Type: adapters.ToolContentText, Text: s}
}

// clip cuts s to n bytes, on a character's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func canonicalJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(bytes.TrimSpace(raw))
	}
	b, _ := json.Marshal(v) // map keys come out sorted
	return string(b)
}
