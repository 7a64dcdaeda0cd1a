package openai

import (
	"context"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/permission"
)

// hookInput is the part of every hook's input the session knows.
func (s *Session) hookInput(ev hooks.Event) hooks.Input {
	return hooks.Input{Event: ev, Session: s.id, Cwd: s.cwd, Agent: s.agent}
}

// sessionStart runs the SessionStart hooks; what they warn of waits for
// the first turn, which has a stream to tell it on.
func (s *Session) sessionStart(ctx context.Context) {
	if !s.hooks.Has(hooks.SessionStart) {
		return
	}
	out := s.hooks.Run(context.WithoutCancel(ctx), s.hookInput(hooks.SessionStart))
	s.hookWarnings = append(s.hookWarnings, out.Warnings...)
}

// promptHook runs the UserPromptSubmit hooks; false when one blocked the
// prompt, which then never reaches the model or the history.
func (s *Session) promptHook(ctx context.Context, prompt []adapters.Content, out *adapters.Turn) bool {
	s.warnHooks(out, s.takeHookWarnings())
	if !s.hooks.Has(hooks.UserPromptSubmit) {
		return true
	}
	in := s.hookInput(hooks.UserPromptSubmit)
	in.Prompt = adapters.PromptText(prompt)
	res := s.hooks.Run(ctx, in)
	s.warnHooks(out, res.Warnings)
	if res.Decision != hooks.Deny {
		return true
	}
	out.Emit(adapters.Event{Type: adapters.EventError, Error: &hooks.Blocked(res).Info})
	return false
}

// preToolUse runs the PreToolUse hooks of a call the gate did not deny
// (a hook cannot lift a deny): a refusal, an allow, or nil.
func (s *Session) preToolUse(ctx context.Context, call adapters.ToolCall, out *adapters.Turn) *adapters.Decision {
	if !s.hooks.Has(hooks.PreToolUse) {
		return nil
	}
	in := s.hookInput(hooks.PreToolUse)
	in.Tool, in.Kind, in.ToolCallID, in.Input = call.Name, string(call.Kind), call.ID, call.RawInput
	res := s.hooks.Run(ctx, in)
	s.warnHooks(out, res.Warnings)
	switch res.Decision {
	case hooks.Deny:
		return &adapters.Decision{By: permission.ByHook, Reason: "Blocked by a PreToolUse hook: " + res.Reason}
	case hooks.Allow:
		return &adapters.Decision{Allowed: true, By: permission.ByHook, Reason: "allowed by a PreToolUse hook"}
	}
	return nil
}

// postToolUse runs the PostToolUse hooks of a call that ran.
func (s *Session) postToolUse(ctx context.Context, call adapters.ToolCall, upd *adapters.ToolCall, output string, out *adapters.Turn) {
	if !s.hooks.Has(hooks.PostToolUse) {
		return
	}
	in := s.hookInput(hooks.PostToolUse)
	in.Tool, in.Kind, in.ToolCallID, in.Input = call.Name, string(call.Kind), call.ID, call.RawInput
	in.Output, in.Status = capText(output, 256<<10), string(upd.Status)
	s.warnHooks(out, s.hooks.Run(ctx, in).Warnings)
}

// stopHook runs the Stop hooks as the turn ends, cancelled or not.
func (s *Session) stopHook(ctx context.Context, stop adapters.StopReason, out *adapters.Turn) {
	if !s.hooks.Has(hooks.Stop) {
		return
	}
	in := s.hookInput(hooks.Stop)
	in.StopReason = string(stop)
	s.warnHooks(out, s.hooks.Run(context.WithoutCancel(ctx), in).Warnings)
}

func (s *Session) takeHookWarnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.hookWarnings
	s.hookWarnings = nil
	return w
}

// warnHooks tells the user of hooks that failed or timed out.
func (s *Session) warnHooks(out *adapters.Turn, warnings []string) {
	for _, w := range warnings {
		s.log.Warn().Str("hook", w).Msg("hook failed")
		out.Emit(adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "hook: " + w, Code: adapters.CodeHook}})
	}
}
