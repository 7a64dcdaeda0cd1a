package codex

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hubdev/hub/adapters"
)

var (
	_ adapters.Configurable = (*appSession)(nil)
	_ adapters.OptionSetter = (*appSession)(nil)
	_ adapters.Surfacer     = (*appSession)(nil)
)

// modes are codex's approval presets, named as codex-acp names them.
var modes = []adapters.Option{
	{ID: "read-only", Name: "Read Only", Description: "Codex reads files; it asks before any edit or command"},
	{ID: "auto", Name: "Default", Description: "Codex edits and runs commands in the workspace; it asks before leaving it"},
	{ID: "full-access", Name: "Full Access", Description: "Codex edits and runs anything without asking"},
}

// preset is what a mode means to codex: its sandbox (thread/start's name
// and turn/start's policy type) and its approval policy. Read-only uses
// the untrusted policy, so every command codex does not know to be safe
// becomes a request the user answers instead of a silent sandbox refusal.
type preset struct{ sandbox, policyType, approval string }

var presets = map[string]preset{
	"read-only":   {"read-only", "readOnly", "untrusted"},
	"auto":        {"workspace-write", "workspaceWrite", "on-request"},
	"full-access": {"danger-full-access", "dangerFullAccess", "never"},
}

// readOnly says the session runs in codex's read-only preset whatever mode
// was chosen: it must ask first, or its tool filter allows nothing that
// writes or runs (codex has no per-tool switch).
func readOnly(opts adapters.SessionOptions) bool {
	return opts.Access == adapters.AccessAskFirst || (opts.Tools != nil && !opts.Tools.Writes())
}

// mode is the session's mode, else the one codex's configured sandbox amounts to.
func (a *Adapter) mode(opts adapters.SessionOptions) string {
	if readOnly(opts) {
		return "read-only"
	}
	if _, ok := presets[opts.Mode]; ok {
		return opts.Mode
	}
	for id, p := range presets {
		if p.sandbox == a.cfg.Option("sandbox") {
			return id
		}
	}
	return "auto"
}

// policy is the thread's sandbox mode and approval policy: the mode's, or
// the configured ones when no mode was chosen.
func (a *Adapter) policy(opts adapters.SessionOptions) (sandbox, approval string) {
	if _, ok := presets[opts.Mode]; ok || readOnly(opts) {
		p := presets[a.mode(opts)]
		return p.sandbox, p.approval
	}
	return cmp.Or(a.cfg.Option("sandbox"), "workspace-write"), cmp.Or(a.cfg.Option("approval_policy"), "on-request")
}

// SetModel implements adapters.Configurable: the next turn runs model.
func (s *appSession) SetModel(_ context.Context, model string) error {
	return s.change(&s.model, model, map[string]any{"model": model})
}

// change sets what the thread runs (field, for Surface) and the overrides
// of the next turn/start.
func (s *appSession) change(field *string, value string, overrides map[string]any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	*field = value
	maps.Copy(s.next, overrides)
	return nil
}

// SetMode implements adapters.Configurable: the next turn runs with the
// mode's sandbox and approval policy.
func (s *appSession) SetMode(_ context.Context, mode string) error {
	p, ok := presets[mode]
	switch {
	case !ok:
		return fmt.Errorf("codex has no mode %q (%w)", mode, adapters.ErrUnsupported)
	case readOnly(s.opts) && mode != "read-only":
		return fmt.Errorf("this session asks before every write, so codex stays read-only (%w)", adapters.ErrUnsupported)
	}
	return s.change(&s.mode, mode, map[string]any{"approvalPolicy": p.approval, "sandboxPolicy": map[string]any{"type": p.policyType}})
}

// SetOption implements adapters.OptionSetter for the reasoning effort.
func (s *appSession) SetOption(_ context.Context, id, value string) error {
	if id != adapters.OptionEffort {
		return fmt.Errorf("codex has no option %q (%w)", id, adapters.ErrUnsupported)
	}
	return s.change(&s.effort, value, map[string]any{"effort": value})
}

// Surface implements adapters.Surfacer: model/list's models with the one
// this thread runs, the modes, and the efforts that model takes.
func (s *appSession) Surface(context.Context) (adapters.Surface, error) {
	models, _ := s.a.models()
	s.mu.Lock()
	model, mode, effort := s.model, s.mode, s.effort
	s.mu.Unlock()
	var sur adapters.Surface
	if model != "" {
		m := adapters.ConfigOption{ID: adapters.OptionModel, Name: "Model", Category: "model", Value: model, Choices: models}
		if !m.Accepts(model) {
			m.Choices = append([]adapters.Option{{ID: model, Name: model}}, models...)
		}
		sur.Options = append(sur.Options, m)
	}
	choices := modes
	if readOnly(s.opts) {
		choices = modes[:1]
	}
	sur.Options = append(sur.Options, adapters.ConfigOption{ID: adapters.OptionMode, Name: "Mode", Category: "mode", Value: mode, Choices: choices})
	s.a.mu.Lock()
	efforts, def := slices.Clone(s.a.catalog.efforts[model]), s.a.catalog.defEffort[model]
	s.a.mu.Unlock()
	if len(efforts) > 0 {
		e := adapters.ConfigOption{ID: adapters.OptionEffort, Name: "Reasoning effort", Category: "thought_level",
			Value: cmp.Or(effort, def), Choices: efforts}
		if !e.Accepts(e.Value) {
			e.Value = efforts[0].ID
		}
		sur.Options = append(sur.Options, e)
	}
	return sur, nil
}
