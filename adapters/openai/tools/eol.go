package tools

import "strings"

// isCRLF reports whether s has line breaks and all of them are \r\n, as
// files written on Windows often do. Mixed files are left as they are.
func isCRLF(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

func toCRLF(s string) string { return strings.ReplaceAll(toLF(s), "\n", "\r\n") }
