//go:build !windows

package tools

import "path/filepath"

// realPath resolves every symlink in the existing path p.
func realPath(p string) (string, error) { return filepath.EvalSymlinks(p) }
