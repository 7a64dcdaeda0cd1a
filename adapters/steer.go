package adapters

import (
	"context"
	"errors"
)

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
