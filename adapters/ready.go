package adapters

import (
	"fmt"

	"github.com/hubdev/hub/internal/proc"
)

// Checker is implemented by adapters that can tell, without starting anything, why they
// cannot run here: Ready's error is one line, wrapping ErrNotInstalled or
// ErrNotAuthenticated.
type Checker interface {
	Ready() error
}

// Ready reports whether a can start here; an adapter that cannot tell is assumed ready.
func Ready(a Adapter) error {
	if c, ok := a.(Checker); ok {
		return c.Ready()
	}
	return nil
}

// FindCLI reports whether an agent's program can be found, on PATH or where package
// managers install to.
func FindCLI(program string) error {
	if _, err := proc.LookPath(program); err != nil {
		return fmt.Errorf("%w: %s not found on PATH", ErrNotInstalled, program)
	}
	return nil
}
