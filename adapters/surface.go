package adapters

import (
	"context"
	"slices"
)

// Surface is what a started session offers the user before any turn: the agent's own
// slash commands and settings, each with the value the agent actually runs.
type Surface struct {
	Commands []Command
	// Options replaces the adapter's static Models and Modes when set.
	Options []ConfigOption
}

// Option IDs the front ends know by meaning; an agent's other options keep its own IDs.
const (
	OptionModel  = "model"
	OptionMode   = "mode"
	OptionEffort = "effort"
)

// ConfigOption is one setting of a session: a select (Choices) or a boolean.
type ConfigOption struct {
	ID          string
	Name        string
	Description string
	Category    string // ACP's: "model", "mode", "thought_level" or ""
	Boolean     bool
	Value       string
	Choices     []Option
}

func (s Surface) Find(id string) (ConfigOption, bool) {
	i := slices.IndexFunc(s.Options, func(o ConfigOption) bool { return o.ID == id })
	if i < 0 {
		return ConfigOption{}, false
	}
	return s.Options[i], true
}

func (o ConfigOption) Accepts(value string) bool {
	if o.Boolean {
		return value == "true" || value == "false"
	}
	return slices.ContainsFunc(o.Choices, func(c Option) bool { return c.ID == value })
}

// OfferValue adds the option's value to its choices when they lack it.
func (o *ConfigOption) OfferValue() {
	if !o.Accepts(o.Value) {
		o.Choices = append(slices.Clip(o.Choices), Option{ID: o.Value, Name: o.Value})
	}
}

// Surfacer is implemented by sessions that learn their surface from the agent once
// started. Surface waits, bounded by ctx, for the agent; the front end calls it once,
// right after Start.
type Surfacer interface {
	Surface(ctx context.Context) (Surface, error)
}

// OptionSetter is implemented by sessions that change an option other than model and
// mode (see Configurable) while they run.
type OptionSetter interface {
	SetOption(ctx context.Context, id, value string) error
}
