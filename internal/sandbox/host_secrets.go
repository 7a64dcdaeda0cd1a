//go:build linux || darwin

package sandbox

import (
	"os"
	"path/filepath"
)

// hostSecrets are the user's credential stores a command in root must not
// read.
func hostSecrets(root string) []Secret {
	home, _ := os.UserHomeDir()
	return Secrets(home, root, os.Stat, filepath.EvalSymlinks)
}
