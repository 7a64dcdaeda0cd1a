//go:build !windows

package detect_test

func underWine() bool { return false }
