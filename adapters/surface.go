package adapters

import (
	"context"
	"errors"
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

// ErrNoTurn means Steer found no turn to join: the input should run as a prompt of its own.
var ErrNoTurn = errors.New("no turn is running")

type judgedKey struct{}

// Judged marks ctx's prompt as one the UserPromptSubmit hooks let pass already: steered
// input that came back as a turn of its own keeps its verdict.
func Judged(ctx context.Context) context.Context { return context.WithValue(ctx, judgedKey{}, true) }

func IsJudged(ctx context.Context) bool { return ctx.Value(judgedKey{}) != nil }

// Steerer is implemented by sessions that take the user's input in the middle of a turn.
// Steer hands prompt to the running turn, or returns ErrNoTurn; the running Prompt call
// carries on with the input and its events, and ends when the agent has answered it too.
type Steerer interface {
	Steer(ctx context.Context, prompt []Content) error
}
