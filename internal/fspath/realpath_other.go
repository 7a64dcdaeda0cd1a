//go:build !windows

package fspath

import "path/filepath"

// RealPath resolves every link in the existing path p.
func RealPath(p string) (string, error) { return filepath.EvalSymlinks(p) }
