package detect

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/agentspec"
)

// Format writes the human report within 80 columns. Shipped native presets
// the user has not set up fold into summary lines at the end unless the
// report holds only one agent; --json lists every one.
func Format(w io.Writer, r *Report, color bool) {
	paint := painter(color)
	fmt.Fprintf(w, "%-12s %-10s %-10s %s\n", "AGENT", "STATUS", "VERSION", "AUTH")
	folded := make([][]string, len(foldTitles))
	for _, a := range r.Agents {
		if line, item := foldedAs(a); line >= 0 && len(r.Agents) > 1 {
			folded[line] = append(folded[line], item)
			continue
		}
		status, code := statusOf(a)
		ver := cmp.Or(a.Version, "-")
		if a.VersionStatus == "timeout" {
			ver = "timeout"
		}
		auth := authLine(a.Auth, shortPath(a.Auth.Source))
		fmt.Fprintf(w, "%-12s %s %-10s %s\n", Clip(a.Name, 12), paint(code, fmt.Sprintf("%-10s", status)), Clip(ver, 10), Clip(auth, 44))
		if a.Path != "" && a.FoundVia != "path" {
			fmt.Fprintf(w, "  found via %s: %s\n", a.FoundVia, Clip(shortPath(a.Path), 60))
		}
		if a.Endpoint != nil && a.Endpoint.BaseURL != "" {
			fmt.Fprintf(w, "  endpoint: %s (%s)\n", a.Endpoint.BaseURL, endpointState(a.Endpoint))
		}
		formatAdvice(w, a, paint)
	}
	for i, title := range foldTitles {
		wrapList(w, title, folded[i])
	}
	formatFooter(w, r, paint)
}

// painter colours s with the ANSI SGR code when color is on.
func painter(color bool) func(code, s string) string {
	return func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
}

func statusOf(a Agent) (status, code string) {
	switch {
	case !a.Installed:
		return "missing", "2"
	case !a.Ready:
		return "not ready", "31"
	}
	return "ready", "32"
}

func formatAdvice(w io.Writer, a Agent, paint func(code, s string) string) {
	for _, warn := range a.Warnings {
		fmt.Fprintf(w, "  %s %s\n", paint("33", "warning:"), warn)
	}
	if a.Fix != "" {
		fmt.Fprintf(w, "  %s %s\n", paint("36", "fix:"), a.Fix)
	}
}

// Clip cuts s to n runes, ending in "…" when it was longer.
func Clip(s string, n int) string {
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

// foldTitles are Format's summary lines of the shipped presets not set up.
var foldTitles = []string{
	"native presets without API key (set it to enable):",
	"local servers (not checked; --probe):",
	"local servers not answering:",
	"native presets needing config (hub doctor --agent NAME):",
}

// foldedAs is the summary line (an index in foldTitles) an unconfigured
// shipped preset that is not usable as is folds into, and its item there;
// line is -1 for an agent with a row of its own.
func foldedAs(a Agent) (line int, item string) {
	ep := a.Endpoint
	switch {
	case a.Kind != "native" || ep == nil || ep.Configured || ep.Preset == "" || a.Name == "openai":
		return -1, ""
	case ep.Local && !ep.Probed:
		return 1, a.Name + " " + hostPort(ep.BaseURL)
	case ep.Local && !ep.Reachable:
		return 2, a.Name + " " + hostPort(ep.BaseURL)
	case ep.Local || a.Ready:
		return -1, ""
	case a.Auth.State == agentspec.AuthNone:
		return 0, a.Name + " " + ep.KeyEnv
	}
	return 3, a.Name
}

func endpointState(ep *Endpoint) string {
	switch {
	case !ep.Probed:
		return "not checked; --probe"
	case ep.Reachable:
		return "answers " + ep.Status
	}
	return "does not answer"
}

func hostPort(base string) string {
	if _, rest, ok := strings.Cut(base, "://"); ok {
		base = rest
	}
	host, _, _ := strings.Cut(base, "/")
	return host
}

// wrapList prints title and items within 80 columns, adding commas in place.
func wrapList(w io.Writer, title string, items []string) {
	if len(items) == 0 {
		return
	}
	for i := range items[:len(items)-1] {
		items[i] += ","
	}
	fmt.Fprintln(w, strings.Join(wrapped(title, items), "\n"))
}

// wrapped lays title and the space-separated items out in lines of at
// most 80 columns, continuation lines indented by two.
func wrapped(title string, items []string) []string {
	var lines []string
	line := title
	for _, it := range items {
		if len([]rune(line))+1+len([]rune(it)) > 80 {
			lines = append(lines, line)
			line = "  " + it
			continue
		}
		line += " " + it
	}
	return append(lines, line)
}

// FormatDetails writes one block per agent with everything the report
// knows (`hub doctor --agent NAME`, `hub doctor -v`).
func FormatDetails(w io.Writer, r *Report, color bool) {
	paint := painter(color)
	for i, a := range r.Agents {
		if i > 0 {
			fmt.Fprintln(w)
		}
		status, code := statusOf(a)
		fmt.Fprintf(w, "%s (%s): %s\n", a.Name, a.Kind, paint(code, status))
		field := func(k, v string) {
			if v != "" {
				fmt.Fprintf(w, "  %-13s %s\n", k+":", v)
			}
		}
		if a.Path != "" {
			field("path", a.Path+" (found via "+a.FoundVia+")")
		}
		field("version", versionLine(a))
		field("config dir", a.ConfigDir)
		field("skills dir", a.SkillsDir)
		field("auth", authLine(a.Auth, "decided by "+a.Auth.Source))
		if ep := a.Endpoint; ep != nil && ep.BaseURL != "" {
			s := ep.BaseURL + " (" + endpointState(ep) + ")"
			if ep.Model != "" {
				s += ", model " + ep.Model
			}
			field("endpoint", s)
		}
		field("capabilities", capsLine(a.Capabilities))
		formatAdvice(w, a, paint)
	}
	formatFooter(w, r, paint)
}

// authLine is the auth state, what decided it (as source says it) and why.
func authLine(auth agentspec.Auth, source string) string {
	s := auth.State
	if auth.Source != "" {
		s += " (" + source + ")"
	}
	if auth.Reason != "" {
		s += ": " + auth.Reason
	}
	return s
}

func versionLine(a Agent) string {
	v := a.Version
	switch {
	case a.VersionStatus == "timeout":
		v = "`--version` timed out"
	case v == "" && a.Kind != "cli":
		return ""
	case v == "":
		v = "unknown"
	}
	if a.VersionFrom != "" {
		v += " (from " + a.VersionFrom + ")"
	}
	var notes []string
	if a.TestedRange != "" {
		notes = append(notes, "supported "+a.TestedRange)
	}
	if a.TestedVersion != "" {
		notes = append(notes, "tested "+a.TestedVersion)
	}
	if a.VersionStatus != "" && a.VersionStatus != "ok" && a.VersionStatus != "timeout" {
		notes = append(notes, strings.ReplaceAll(a.VersionStatus, "_", " "))
	}
	if len(notes) > 0 {
		v += "; " + strings.Join(notes, ", ")
	}
	return v
}

func capsLine(c *adapters.Capabilities) string {
	if c == nil {
		return ""
	}
	var out []string
	for _, f := range []struct {
		on   bool
		name string
	}{{c.Images, "images"}, {c.Audio, "audio"}, {c.Resume, "resume"}, {c.Permissions, "permissions"},
		{c.MCP, "mcp"}, {c.MCPHTTP, "mcp-http"}, {!c.Permissions, "no permission prompts"},
		{c.Skills != "", "skills " + c.Skills}, {len(c.Models) > 0, fmt.Sprintf("%d models", len(c.Models))},
		{len(c.Modes) > 0, fmt.Sprintf("%d modes", len(c.Modes))}} {
		if f.on {
			out = append(out, f.name)
		}
	}
	return strings.Join(out, ", ")
}

// formatFooter prints the native loop's sandbox (warning colour when there
// is none) and whether the report came from the cache.
func formatFooter(w io.Writer, r *Report, paint func(code, s string) string) {
	if r.NativeSandbox != "" {
		const label = "native loop sandbox:"
		lines := wrapped(label, strings.Fields(r.NativeSandbox))
		if strings.HasPrefix(r.NativeSandbox, "not sandboxed") {
			lines[0] = paint("33", label) + strings.TrimPrefix(lines[0], label)
		}
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
	if r.Cached {
		fmt.Fprintf(w, "(cached %s; --refresh to probe again)\n", r.GeneratedAt.Local().Format("15:04:05"))
	}
}
