//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNonblock keeps an open of a FIFO swapped in after Stat from blocking.
const openNonblock = syscall.O_NONBLOCK

func rename(from, to string) error { return os.Rename(from, to) }
