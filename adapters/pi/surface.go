package pi

import (
	"cmp"
	"context"
	"fmt"

	"github.com/hubdev/hub/adapters"
)

var (
	_ adapters.Surfacer     = (*session)(nil)
	_ adapters.OptionSetter = (*session)(nil)
)

// thinkingLevels are pi's thinking levels (`--thinking`).
var thinkingLevels = []adapters.Option{
	{ID: "off", Name: "Off"}, {ID: "minimal", Name: "Minimal"}, {ID: "low", Name: "Low"},
	{ID: "medium", Name: "Medium"}, {ID: "high", Name: "High"}, {ID: "xhigh", Name: "Extra high"},
}

// Surface implements adapters.Surfacer: pi's available models with the one
// it runs, its thinking level when that model reasons, and its commands.
func (s *session) Surface(ctx context.Context) (adapters.Surface, error) {
	var ms struct {
		Models []piModel `json:"models"`
	}
	if err := s.call(ctx, map[string]any{"type": "get_available_models"}, &ms); err != nil {
		return adapters.Surface{}, fmt.Errorf("pi get_available_models: %w", err)
	}
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	model := adapters.ConfigOption{ID: adapters.OptionModel, Name: "Model", Category: "model", Value: st.Model.ref()}
	for _, m := range ms.Models {
		model.Choices = append(model.Choices, adapters.Option{ID: m.ref(), Name: cmp.Or(m.Name, m.ID), Description: m.Provider})
	}
	var sur adapters.Surface
	if model.Value != "" && len(model.Choices) > 0 {
		model.OfferValue()
		sur.Options = append(sur.Options, model)
	}
	if st.Model != nil && st.Model.Reasoning {
		sur.Options = append(sur.Options, adapters.ConfigOption{ID: adapters.OptionEffort, Name: "Thinking", Category: "thought_level",
			Value: cmp.Or(st.ThinkingLevel, "medium"), Choices: thinkingLevels})
	}
	var cs struct {
		Commands []adapters.Command `json:"commands"`
	}
	if s.call(ctx, map[string]any{"type": "get_commands"}, &cs) == nil {
		sur.Commands = cs.Commands
	}
	return sur, nil
}

// SetOption implements adapters.OptionSetter for the thinking level.
func (s *session) SetOption(ctx context.Context, id, value string) error {
	if id != adapters.OptionEffort {
		return fmt.Errorf("pi has no option %q (%w)", id, adapters.ErrUnsupported)
	}
	if err := s.call(ctx, map[string]any{"type": "set_thinking_level", "level": value}, nil); err != nil {
		return fmt.Errorf("set pi thinking level %q: %w", value, err)
	}
	return s.loadState(ctx)
}
