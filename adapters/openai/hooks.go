package openai

import (
	"context"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/permission"
)

// hook tells the user of hooks that failed or timed out on out (nil: on
// the next turn's).
func (s *Session) hook(ctx context.Context, in hooks.Input, out *adapters.Turn) hooks.Outcome {
	if !s.hooks.Has(in.Event) {
		return hooks.Outcome{}
	}
	in.Session, in.Cwd, in.Agent = s.id, s.cwd, s.profile().Name
	res := s.hooks.Run(ctx, in)
	for _, w := range res.Warnings {
		s.log.Warn().Str("hook", w).Msg("hook failed")
		s.tell(out, adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "hook: " + w, Code: adapters.CodeHook}})
	}
	return res
}

func toolInput(ev hooks.Event, call adapters.ToolCall) hooks.Input {
	return hooks.Input{Event: ev, Tool: call.Name, Kind: string(call.Kind), ToolCallID: call.ID, Input: call.RawInput}
}

// preToolUse runs the PreToolUse hooks of a call the gate did not deny
// (a hook cannot lift a deny): a refusal, an allow, or nil.
func (s *Session) preToolUse(ctx context.Context, call adapters.ToolCall, out *adapters.Turn) *adapters.Decision {
	switch res := s.hook(ctx, toolInput(hooks.PreToolUse, call), out); res.Decision {
	case hooks.Deny:
		return &adapters.Decision{By: permission.ByHook, Reason: "Blocked by a PreToolUse hook: " + res.Reason}
	case hooks.Allow:
		return &adapters.Decision{Allowed: true, By: permission.ByHook, Reason: "allowed by a PreToolUse hook"}
	}
	return nil
}
