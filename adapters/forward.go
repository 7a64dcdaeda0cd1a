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

// forward calls the wrapped session's feature F, or returns without, what a front end
// does when the session lacks it.
func forward[F, R any](s Session, call func(F) R, without R) R {
	if f, ok := s.(F); ok {
		return call(f)
	}
	return without
}

func (f Forward) SetModel(ctx context.Context, model string) error {
	return forward(f.Session, func(c Configurable) error { return c.SetModel(ctx, model) }, ErrNeedsRestart)
}

func (f Forward) SetMode(ctx context.Context, mode string) error {
	return forward(f.Session, func(c Configurable) error { return c.SetMode(ctx, mode) }, ErrNeedsRestart)
}

func (f Forward) SetOption(ctx context.Context, id, value string) error {
	return forward(f.Session, func(c OptionSetter) error { return c.SetOption(ctx, id, value) }, ErrNeedsRestart)
}

func (f Forward) Surface(ctx context.Context) (Surface, error) {
	if c, ok := f.Session.(Surfacer); ok {
		return c.Surface(ctx)
	}
	return Surface{}, fmt.Errorf("the agent reports no surface: %w", ErrUnsupported)
}

func (f Forward) Exit() *ErrorInfo { return forward(f.Session, Exiter.Exit, nil) }
