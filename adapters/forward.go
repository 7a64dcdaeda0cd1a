package adapters

import (
	"context"
	"fmt"
)

// Forward is embedded by a session that wraps another: it passes the optional session
// features on to the wrapped session and, where that lacks one, answers what a front end
// does without it (restart to change a setting, no surface, no exit to report). Steering
// is left out: a front end queues the input for a session that cannot steer.
type Forward struct{ Session }

var (
	_ Configurable = Forward{}
	_ OptionSetter = Forward{}
	_ Surfacer     = Forward{}
	_ Exiter       = Forward{}
)

func (f Forward) SetModel(ctx context.Context, model string) error {
	if c, ok := f.Session.(Configurable); ok {
		return c.SetModel(ctx, model)
	}
	return ErrNeedsRestart
}

func (f Forward) SetMode(ctx context.Context, mode string) error {
	if c, ok := f.Session.(Configurable); ok {
		return c.SetMode(ctx, mode)
	}
	return ErrNeedsRestart
}

func (f Forward) SetOption(ctx context.Context, id, value string) error {
	if c, ok := f.Session.(OptionSetter); ok {
		return c.SetOption(ctx, id, value)
	}
	return ErrNeedsRestart
}

func (f Forward) Surface(ctx context.Context) (Surface, error) {
	if c, ok := f.Session.(Surfacer); ok {
		return c.Surface(ctx)
	}
	return Surface{}, fmt.Errorf("the agent reports no surface: %w", ErrUnsupported)
}

func (f Forward) Exit() *ErrorInfo {
	if c, ok := f.Session.(Exiter); ok {
		return c.Exit()
	}
	return nil
}
