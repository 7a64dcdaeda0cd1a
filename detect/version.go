package detect

import (
	"slices"
	"strconv"
	"strings"
)

// checkRange compares version with a range such as ">=2.1.0 <3.0.0",
// "2.1.0 - 2.9.9", ">=0.73.0" or "2.1.330" (exact minimum): each bound is
// checked as it is read, a lower one first.
func checkRange(version, rng string) string {
	v, ok := parseVer(version)
	if !ok {
		return "unknown"
	}
	if a, b, ok := strings.Cut(rng, " - "); ok { // both ends included
		rng = ">=" + strings.TrimSpace(a) + " <=" + strings.TrimSpace(b)
	}
	status := "ok"
	for _, f := range strings.Fields(strings.ReplaceAll(rng, ",", " ")) {
		bound := strings.TrimLeft(f, "<>=")
		b, ok := parseVer(bound)
		if !ok {
			continue
		}
		switch op, c := f[:len(f)-len(bound)], slices.Compare(v[:], b[:]); {
		case (op == ">=" || op == "") && c < 0:
			return "too_old"
		case op == "<=" && c > 0, op == "<" && c >= 0:
			status = "newer_than_tested"
		}
	}
	return status
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
