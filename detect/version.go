package detect

import (
	"slices"
	"strconv"
	"strings"
)

// checkRange compares version with a range such as ">=2.1.0 <3.0.0",
// "2.1.0 - 2.9.9", ">=0.73.0" or "2.1.330" (exact minimum).
func checkRange(version, rng string) string {
	v, ok := parseVer(version)
	if !ok {
		return "unknown"
	}
	lo, hi, hiIncl := bounds(rng)
	if lo != nil && cmpVer(v, *lo) < 0 {
		return "too_old"
	}
	if hi != nil {
		c := cmpVer(v, *hi)
		if c > 0 || (c == 0 && !hiIncl) {
			return "newer_than_tested"
		}
	}
	return "ok"
}

type ver [3]int

func parseVer(s string) (ver, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return ver{}, false
	}
	var v ver
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return ver{}, false
		}
		v[i] = n
	}
	return v, true
}

func cmpVer(a, b ver) int { return slices.Compare(a[:], b[:]) }

func bounds(rng string) (lo, hi *ver, hiIncl bool) {
	if a, b, ok := strings.Cut(rng, " - "); ok { // both ends included
		rng = ">=" + strings.TrimSpace(a) + " <=" + strings.TrimSpace(b)
	}
	for _, f := range strings.Fields(strings.ReplaceAll(rng, ",", " ")) {
		switch {
		case strings.HasPrefix(f, ">="):
			if v, ok := parseVer(f[2:]); ok {
				lo = &v
			}
		case strings.HasPrefix(f, "<="):
			if v, ok := parseVer(f[2:]); ok {
				hi, hiIncl = &v, true
			}
		case strings.HasPrefix(f, "<"):
			if v, ok := parseVer(f[1:]); ok {
				hi, hiIncl = &v, false
			}
		default:
			if v, ok := parseVer(f); ok {
				lo = &v
			}
		}
	}
	return lo, hi, hiIncl
}
