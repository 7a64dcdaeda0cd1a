package openai

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai/tools"
)

// The native loop's modes: plan and read-only offer no tool that writes
// or runs a command; plan turns the answer into the session's plan.
const (
	modeDefault  = "default"
	modePlan     = "plan"
	modeReadOnly = "read-only"
)

var nativeModes = []adapters.Option{
	{ID: modeDefault, Name: "Default", Description: "every tool, asked as the permission rules say"},
	{ID: modePlan, Name: "Plan", Description: "reads and searches only; the answer is a plan"},
	{ID: modeReadOnly, Name: "Read-only", Description: "reads and searches only"},
}

func validMode(mode string) error {
	if mode != "" && !slices.ContainsFunc(nativeModes, func(o adapters.Option) bool { return o.ID == mode }) {
		return fmt.Errorf("mode %q (the native loop has default, plan and read-only): %w", mode, adapters.ErrUnsupported)
	}
	return nil
}

func (s *Session) SetMode(_ context.Context, mode string) error {
	if err := validMode(mode); err != nil {
		return err
	}
	s.mu.Lock()
	s.mode = mode
	s.mu.Unlock()
	return nil
}

// offered is the front end's filter (a persona's tools) narrowed by the
// mode, and the mode.
func (s *Session) offered() (*adapters.ToolFilter, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := cmp.Or(s.tools, &adapters.ToolFilter{}); s.mode == modePlan || s.mode == modeReadOnly {
		return &adapters.ToolFilter{Allow: f.Allow, Deny: append(slices.Clone(f.Deny), adapters.WriteKinds...)}, s.mode
	}
	return s.tools, s.mode
}

func (s *Session) permits(name string) bool {
	f, _ := s.offered()
	return f.Permits(name, tools.KindOf(name))
}

var modeNotes = map[string]string{
	modePlan: "You are in plan mode: read and search only, change nothing. " +
		"End your answer with the plan as a numbered list of steps, one line each.",
	modeReadOnly: "You are in read-only mode: read and search only; you cannot change files or run commands.",
}

// noted is history with the mode's note added to the system message, for
// one request.
func (s *Session) noted(history []message) []message {
	_, mode := s.offered()
	if note := modeNotes[mode]; note != "" && len(history) > 0 && history[0].Role == "system" {
		if text, ok := history[0].Content.(string); ok {
			return append([]message{{Role: "system", Content: text + "\n\n" + note}}, history[1:]...)
		}
	}
	return history
}

func (s *Session) emitPlan(text string, out *adapters.Turn) {
	if _, mode := s.offered(); mode == modePlan {
		if plan := planOf(text); len(plan) > 0 {
			out.Emit(adapters.Event{Type: adapters.EventPlan, Plan: plan})
		}
	}
}

var planItem = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.+)$`)

func planOf(text string) []adapters.PlanEntry {
	var out []adapters.PlanEntry
	for _, line := range strings.Split(text, "\n") {
		if m := planItem.FindStringSubmatch(line); m != nil {
			out = append(out, adapters.PlanEntry{Content: strings.TrimSpace(m[1]), Priority: "medium", Status: "pending"})
		}
	}
	return out
}
