package detect

import (
	"fmt"
	"io"
	"strings"
)

// Format writes the human report, readable at 80 columns: one row per
// agent, then indented warning and fix lines.
func Format(w io.Writer, r *Report, color bool) {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	fmt.Fprintf(w, "%-12s %-10s %-10s %s\n", "AGENT", "STATUS", "VERSION", "AUTH")
	for _, a := range r.Agents {
		status, code := "ready", "32"
		switch {
		case !a.Installed:
			status, code = "missing", "2"
		case !a.Ready:
			status, code = "not ready", "31"
		}
		ver := a.Version
		if ver == "" {
			ver = "-"
		}
		if a.VersionStatus == "timeout" {
			ver = "timeout"
		}
		auth := a.Auth.State
		if a.Auth.Source != "" {
			auth += " (" + shortPath(a.Auth.Source) + ")"
		}
		fmt.Fprintf(w, "%-12s %s %-10s %s\n", cut(a.Name, 12), paint(code, fmt.Sprintf("%-10s", status)), cut(ver, 10), cut(auth, 44))
		if a.Path != "" && a.FoundVia != "path" {
			fmt.Fprintf(w, "  found via %s: %s\n", a.FoundVia, cut(shortPath(a.Path), 60))
		}
		for _, warn := range a.Warnings {
			fmt.Fprintf(w, "  %s %s\n", paint("33", "warning:"), warn)
		}
		if a.Fix != "" {
			fmt.Fprintf(w, "  %s %s\n", paint("36", "fix:"), a.Fix)
		}
	}
	if r.Cached {
		fmt.Fprintf(w, "(cached %s; --refresh to probe again)\n", r.GeneratedAt.Local().Format("15:04:05"))
	}
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func shortPath(p string) string {
	if strings.Count(p, "/") > 3 {
		parts := strings.Split(p, "/")
		return "…/" + strings.Join(parts[len(parts)-2:], "/")
	}
	return p
}
