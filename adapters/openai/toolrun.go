package openai

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai/tools"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/transcript"
)

// uiTextCap bounds tool output copied into tool updates for the editor.
const uiTextCap = 8 << 10

// runTool validates, checks permission for, and runs one call, emitting the
// ACP tool events. It returns the text the model reads.
func (s *Session) runTool(ctx context.Context, tc toolCall, out *adapters.Turn) string {
	name, args := tc.Function.Name, json.RawMessage(tc.Function.Arguments)
	call := adapters.ToolCall{ID: tc.ID, Name: name, Title: name, Kind: tools.KindOf(name), Status: adapters.StatusPending}
	if json.Valid(args) {
		call.RawInput = args
	}
	if name == delegateToolName && s.delegate != nil {
		return s.runDelegate(ctx, call, args, out)
	}
	if t, ok := s.mcp.tools[name]; ok {
		return s.runMCPTool(ctx, call, t, args, out)
	}
	p, err := s.env.Prepare(name, args)
	if err != nil {
		call.Status = adapters.StatusFailed
		call.Content = []adapters.ToolContent{textContent(err.Error())}
		out.Emit(adapters.Event{Type: adapters.EventToolCall, Tool: &call})
		return "error: " + err.Error()
	}
	call.Title, call.Locations = p.Title, p.Locations
	out.Emit(adapters.Event{Type: adapters.EventToolCall, Tool: &call})

	if msg, ok := s.doomLoop(ctx, call, name, args, out); !ok {
		return msg
	}
	req := permission.Request{Tool: name, Kind: p.Kind, Path: p.Path, Cwd: s.env.Root, Command: p.Command}
	if msg, ok := s.permitted(ctx, call, req, out); !ok {
		return msg
	}
	out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: call.ID, Status: adapters.StatusInProgress}})
	res := p.Run(ctx, func(u adapters.ToolCall) {
		u.ID = call.ID
		out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: &u})
	})
	upd := &adapters.ToolCall{ID: call.ID, Status: adapters.StatusCompleted, Content: res.Content, Locations: res.Locations}
	if res.Failed {
		upd.Status = adapters.StatusFailed
	}
	if len(upd.Content) == 0 {
		upd.Content = []adapters.ToolContent{textContent(capText(res.Output, uiTextCap))}
	}
	out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: upd})
	s.postToolUse(ctx, call, upd, res.Output, out)
	return res.Output
}

// permitted passes a call through the permission service and then the
// PreToolUse hooks, asking the user when neither decides; msg is what the
// model reads when it may not run. A hook may deny, or allow what would
// be asked; nothing lifts a deny of the permission service (the hard deny
// list, deny rules), nor a must-ask (a secret read: the user is asked).
func (s *Session) permitted(ctx context.Context, call adapters.ToolCall, req permission.Request, out *adapters.Turn) (msg string, ok bool) {
	v := s.check(req)
	if v.Decision != permission.Deny {
		switch h := s.preToolUse(ctx, call, req.Kind, out); h.Decision {
		case hooks.Deny:
			s.decided(out, call, permission.Verdict{Decision: permission.Deny, Reason: "blocked by a PreToolUse hook: " + h.Reason, By: permission.ByHook})
			fail(out, call.ID, "blocked by a hook: "+h.Reason)
			return "Blocked by a PreToolUse hook: " + h.Reason + ". Do not retry this call; choose another approach or ask the user.", false
		case hooks.Allow:
			if !v.Must {
				v = permission.Verdict{Decision: permission.Allow, Reason: "allowed by a PreToolUse hook", By: permission.ByHook}
			}
		}
	}
	switch v.Decision {
	case permission.Allow:
		if v.By != "" { // decided, not the loop's default for reads
			s.decided(out, call, v)
		}
	case permission.Deny:
		s.decided(out, call, v)
		fail(out, call.ID, "denied: "+v.Reason)
		return "Permission denied (" + v.Reason + "). Do not retry this call; choose another approach or ask the user.", false
	case permission.Ask:
		d := s.ask(ctx, call, nil, out)
		if s.rules.Permission == nil { // else the front end's gate keeps the session's one "always" memory
			s.perm.Remember(req, d.Kind)
		}
		if d.By != "" { // the gate's decision, which it reported itself
			s.record(call, d.Allowed(), d.By, d.Reason)
		}
		if !d.Allowed() {
			fail(out, call.ID, "rejected by the user")
			if d.Cancelled {
				return "cancelled by the user", false
			}
			return "The user rejected this tool call. Do not retry it; ask the user how to proceed if needed.", false
		}
	}
	return "", true
}

// decided reports a decision the loop took itself (the front end's gate
// reports those it answers), in the turn and the session's transcript.
func (s *Session) decided(out *adapters.Turn, call adapters.ToolCall, v permission.Verdict) {
	out.Emit(s.record(call, v.Decision == permission.Allow, v.By, v.Reason))
}

// record writes one decision in the session's transcript.
func (s *Session) record(call adapters.ToolCall, allowed bool, by, reason string) adapters.Event {
	ev := adapters.Event{Type: adapters.EventDecision, Decision: &adapters.Decision{ToolID: call.ID, Title: call.Title, Kind: call.Kind,
		Allowed: allowed, By: by, Reason: reason}}
	if s.tr != nil {
		s.tr.Write(transcript.Record{Type: transcript.TypeEvent, Event: &ev})
	}
	return ev
}

// runMCPTool runs a tool of one of the session's MCP servers: asked like
// any tool (kind other: ask, unless a rule allows mcp__server__*).
func (s *Session) runMCPTool(ctx context.Context, call adapters.ToolCall, t mcpTool, args json.RawMessage, out *adapters.Turn) string {
	call.Kind, call.Title = adapters.KindOther, t.server+": "+t.tool
	out.Emit(adapters.Event{Type: adapters.EventToolCall, Tool: &call})
	if msg, ok := s.doomLoop(ctx, call, call.Name, args, out); !ok {
		return msg
	}
	req := permission.Request{Tool: call.Name, Kind: adapters.KindOther, Cwd: s.env.Root}
	if msg, ok := s.permitted(ctx, call, req, out); !ok {
		return msg
	}
	out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: call.ID, Status: adapters.StatusInProgress}})
	text, content, failed := t.call(ctx, args)
	upd := &adapters.ToolCall{ID: call.ID, Status: adapters.StatusCompleted, Content: content}
	if failed {
		upd.Status = adapters.StatusFailed
	}
	if len(upd.Content) == 0 {
		upd.Content = []adapters.ToolContent{textContent(capText(text, uiTextCap))}
	}
	out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: upd})
	s.postToolUse(ctx, call, upd, text, out)
	return text
}

// doomLoop asks the user before the same call runs doomLoopRepeats times in
// a row; ok is false when the call must not run.
func (s *Session) doomLoop(ctx context.Context, call adapters.ToolCall, name string, args json.RawMessage, out *adapters.Turn) (string, bool) {
	sig := name + "\x00" + canonicalJSON(args)
	if sig == s.lastCall {
		s.repeats++
	} else {
		s.lastCall, s.repeats = sig, 1
	}
	if s.repeats < doomLoopRepeats {
		return "", true
	}
	ask := call
	ask.Title = "Repeated " + itoa(s.repeats) + " times in a row: " + call.Title
	d := s.ask(ctx, ask, []adapters.PermissionOption{
		{ID: "continue", Name: "Let it continue", Kind: adapters.AllowOnce},
		{ID: "stop", Name: "Stop the repetition", Kind: adapters.RejectOnce},
	}, out)
	if d.Allowed() {
		s.repeats = 0
		return "", true
	}
	s.repeats = 0
	fail(out, call.ID, "stopped: the same call repeated")
	return "Stopped by the user: you made this exact call with the same input " + itoa(doomLoopRepeats) +
		" times in a row. Do not repeat it; try a different approach or explain what is blocking you.", false
}

// ask emits a permission request and waits for the answer or cancellation.
func (s *Session) ask(ctx context.Context, call adapters.ToolCall, opts []adapters.PermissionOption, out *adapters.Turn) adapters.PermissionDecision {
	req := adapters.NewPermissionRequest(call, opts)
	out.Emit(adapters.Event{Type: adapters.EventPermission, Permission: req})
	select {
	case d := <-req.Decision():
		return d
	case <-ctx.Done():
		req.Respond(adapters.PermissionDecision{Cancelled: true})
		return adapters.PermissionDecision{Cancelled: true}
	}
}

func fail(out *adapters.Turn, id, why string) {
	out.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: id, Status: adapters.StatusFailed,
		Content: []adapters.ToolContent{textContent(why)}}})
}

func textContent(s string) adapters.ToolContent {
	return adapters.ToolContent{Type: adapters.ToolContentText, Text: s}
}

func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n[…]"
}

func canonicalJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(bytes.TrimSpace(raw))
	}
	b, _ := json.Marshal(v) // map keys come out sorted
	return string(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
