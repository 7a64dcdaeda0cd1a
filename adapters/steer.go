package adapters

import (
	"context"
	"errors"
)

// ErrNoTurn means Steer found no turn to join: the input should run as a
// prompt of its own.
var ErrNoTurn = errors.New("no turn is running")

type judgedKey struct{}

// Judged marks ctx's prompt as one the UserPromptSubmit hooks let pass
// already: steered input that came back as a turn of its own keeps its
// verdict, and the hooks do not run on it twice.
func Judged(ctx context.Context) context.Context { return context.WithValue(ctx, judgedKey{}, true) }

// IsJudged reports whether Judged marked ctx.
func IsJudged(ctx context.Context) bool { return ctx.Value(judgedKey{}) != nil }

// Steerer is implemented by sessions that take the user's input in the
// middle of a turn: claude as a user message on its stream-json input,
// codex through turn/steer, pi through its steer command, the native loop
// before its next model request. The running Prompt call carries on with
// the input and its events, and ends when the agent has answered it too.
type Steerer interface {
	// Steer hands prompt to the running turn, or returns ErrNoTurn.
	Steer(ctx context.Context, prompt []Content) error
}
