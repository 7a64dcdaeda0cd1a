package personas

import (
	"context"
	"fmt"

	"github.com/hubdev/hub/adapters"
)

// The optional session interfaces pass on to the backend session; where
// it lacks one, the answer is what a front end does without it: restart
// to change a setting, no steering, no surface.
var (
	_ adapters.Configurable = (*warned)(nil)
	_ adapters.OptionSetter = (*warned)(nil)
	_ adapters.Steerer      = (*warned)(nil)
	_ adapters.Surfacer     = (*warned)(nil)
)

func (w *warned) SetModel(ctx context.Context, model string) error {
	if c, ok := w.Session.(adapters.Configurable); ok {
		return c.SetModel(ctx, model)
	}
	return adapters.ErrNeedsRestart
}

func (w *warned) SetMode(ctx context.Context, mode string) error {
	if c, ok := w.Session.(adapters.Configurable); ok {
		return c.SetMode(ctx, mode)
	}
	return adapters.ErrNeedsRestart
}

func (w *warned) SetOption(ctx context.Context, id, value string) error {
	if c, ok := w.Session.(adapters.OptionSetter); ok {
		return c.SetOption(ctx, id, value)
	}
	return adapters.ErrNeedsRestart
}

func (w *warned) Steer(ctx context.Context, prompt []adapters.Content) error {
	if c, ok := w.Session.(adapters.Steerer); ok {
		return c.Steer(ctx, prompt)
	}
	return adapters.ErrNoTurn
}

func (w *warned) Surface(ctx context.Context) (adapters.Surface, error) {
	if c, ok := w.Session.(adapters.Surfacer); ok {
		return c.Surface(ctx)
	}
	return adapters.Surface{}, fmt.Errorf("the agent reports no surface: %w", adapters.ErrUnsupported)
}
