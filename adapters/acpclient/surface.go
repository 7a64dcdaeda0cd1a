package acpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hubdev/hub/adapters"
)

var (
	_ adapters.Surfacer     = (*Session)(nil)
	_ adapters.OptionSetter = (*Session)(nil)
)

// commandsWait bounds how long Surface waits for the agent's slash
// commands, which ACP agents send in an update right after session/new.
const commandsWait = 500 * time.Millisecond

// Surface implements adapters.Surfacer: the agent's options (options) and
// the commands it announced since session/new.
func (s *Session) Surface(ctx context.Context) (adapters.Surface, error) {
	ctx, cancel := context.WithTimeout(ctx, commandsWait)
	defer cancel()
	select {
	case <-s.commandsKept:
	case <-ctx.Done():
	case <-s.closed:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return adapters.Surface{Commands: s.commands, Options: options(s.config, s.legacy)}, nil
}

// options are a session's config options, and its legacy models and modes
// where those have none (as SetModel and SetMode fall back to them).
func options(config []configOption, legacy sessionResult) []adapters.ConfigOption {
	var out []adapters.ConfigOption
	for _, c := range config {
		if o, ok := surfaceOption(c); ok {
			out = append(out, o)
		}
	}
	has := func(id string) bool {
		return slices.ContainsFunc(out, func(o adapters.ConfigOption) bool { return o.ID == id })
	}
	if m := legacy.Models; m != nil && !has(adapters.OptionModel) {
		o := adapters.ConfigOption{ID: adapters.OptionModel, Name: "Model", Category: "model", Value: m.CurrentModelID}
		for _, m := range m.AvailableModels {
			o.Choices = append(o.Choices, adapters.Option{ID: m.ModelID, Name: m.Name, Description: m.Description})
		}
		out = append(out, o)
	}
	if m := legacy.Modes; m != nil && !has(adapters.OptionMode) {
		o := adapters.ConfigOption{ID: adapters.OptionMode, Name: "Mode", Category: "mode", Value: m.CurrentModeID}
		for _, m := range m.AvailableModes {
			o.Choices = append(o.Choices, adapters.Option{ID: m.ID, Name: m.Name, Description: m.Description})
		}
		out = append(out, o)
	}
	return out
}

// surfaceOption maps one of the agent's select or boolean config options.
func surfaceOption(c configOption) (adapters.ConfigOption, bool) {
	o := adapters.ConfigOption{ID: hubOptionID(c), Name: cmp.Or(c.Name, c.ID), Category: c.Category}
	switch c.Type {
	case "select":
		_ = json.Unmarshal(c.CurrentValue, &o.Value)
		o.Choices = c.selectValues()
		return o, len(o.Choices) > 0
	case "boolean":
		var b bool
		err := json.Unmarshal(c.CurrentValue, &b)
		o.Boolean, o.Value = true, fmt.Sprint(b)
		return o, err == nil
	}
	return o, false // an option kind hub does not know yet
}

func hubOptionID(c configOption) string {
	switch {
	case c.Category == "model" || c.ID == "model":
		return adapters.OptionModel
	case c.Category == "mode" || c.ID == "mode":
		return adapters.OptionMode
	case c.ID == "agent": // hub's own agent select
		return "agent_" + c.ID
	}
	return c.ID
}

// SetOption implements adapters.OptionSetter for the agent's config options.
func (s *Session) SetOption(ctx context.Context, id, value string) error {
	c, ok := s.option(id)
	if !ok {
		return fmt.Errorf("%s has no option %q (%w)", s.a.cfg.Name, id, adapters.ErrUnsupported)
	}
	return s.setConfig(ctx, c, value)
}
