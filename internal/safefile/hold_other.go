//go:build !unix && !windows

package safefile

import "os"

// Platforms without file locks hold nothing.
func tryLock(*os.File) error { return nil }

func unlock(*os.File) {}

func links(*os.File, os.FileInfo) uint64 { return 1 }
