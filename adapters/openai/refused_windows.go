package openai

import (
	"errors"
	"syscall"

	"golang.org/x/sys/windows"
)

// connRefused reports a refused connection. Winsock's WSAECONNREFUSED is
// not syscall.ECONNREFUSED (an invented errno on Windows), and errors.Is
// does not map one to the other.
func connRefused(err error) bool {
	return errors.Is(err, windows.WSAECONNREFUSED) || errors.Is(err, syscall.ECONNREFUSED)
}
