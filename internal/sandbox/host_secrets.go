//go:build linux || darwin

package sandbox

import (
	"os"
	"path/filepath"
)

func hostSecrets(root string) []Secret {
	home, _ := os.UserHomeDir()
	return Secrets(home, root, os.Stat, filepath.EvalSymlinks)
}
