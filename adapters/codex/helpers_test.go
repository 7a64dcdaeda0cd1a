//go:build unix

package codex

import (
	"context"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
)

func mustPrompt(t *testing.T, s adapters.Session, text string) <-chan adapters.Event {
	t.Helper()
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt(text))
	if err != nil {
		t.Fatal(err)
	}
	return ch
}
