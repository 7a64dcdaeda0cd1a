// Package glob compiles path globs where ** crosses directories and * and ?
// do not, for the permission rules. (The native loop's glob and grep tools
// use doublestar, which adds {a,b} and [ab].)
package glob

import (
	"path/filepath"
	"regexp"
	"strings"
)

// Regexp turns a glob into an anchored regexp over slash-separated paths.
func Regexp(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	g := filepath.ToSlash(glob)
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			if i+1 < len(g) && g[i+1] == '*' {
				i++
				if i+1 < len(g) && g[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
