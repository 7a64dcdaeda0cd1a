//go:build !unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

const openNonblock = 0

// rename retries briefly: on Windows a rename over a file another process
// is reading is denied.
func rename(from, to string) error {
	var err error
	for i := 0; i < 50; i++ {
		if err = os.Rename(from, to); err == nil || !errors.Is(err, fs.ErrPermission) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}
