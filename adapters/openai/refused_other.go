//go:build !windows

package openai

import (
	"errors"
	"syscall"
)

// connRefused reports a refused connection.
func connRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}
