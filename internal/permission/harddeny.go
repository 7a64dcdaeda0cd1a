package permission

import (
	"path/filepath"
	"regexp"
	"strings"
)

var (
	segmentSplit = regexp.MustCompile(`\|\||&&|[;|&\n]`)
	pipeToShell  = regexp.MustCompile(`\b(curl|wget|fetch)\b[^|;&]*\|\s*(sudo\s+)?(env\s+)?(ba|z|da|k|fi)?sh\b|\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(python[0-9.]*|perl|ruby|node)\b`)
	forkBomb     = regexp.MustCompile(`([A-Za-z_:.][A-Za-z0-9_:.]*)\(\)\{`)
	ddToDev      = regexp.MustCompile(`\bdd\b.*\bof=/dev/`)
	mkfs         = regexp.MustCompile(`(^|[\s;&|/])mkfs(\.[a-z0-9]+)?\b`)
	redirectEnv  = regexp.MustCompile(`>>?\s*["']?(\S*/)?\.env(\.[A-Za-z0-9_-]+)?["']?(\s|$)`)
	shredDev     = regexp.MustCompile(`>\s*/dev/(sd|nvme|hd|vd|disk)`)
)

// HardDeny reports whether req hits the built-in deny list, and why. No rule,
// policy or "always allow" answer lifts these.
func HardDeny(req Request) (string, bool) {
	if req.Command != "" {
		if why, ok := hardDenyCommand(req.Command); ok {
			return why, true
		}
	}
	if req.Path != "" && req.Kind != "read" && req.Kind != "search" && IsEnvFile(req.Path) {
		return "writing .env files is never allowed (secrets)", true
	}
	return "", false
}

// IsEnvFile reports whether path names a dotenv file (.env, .env.local, ...)
// other than a committed template (.env.example, .env.sample, .env.template).
func IsEnvFile(path string) bool {
	base := filepath.Base(path)
	if base != ".env" && !strings.HasPrefix(base, ".env.") {
		return false
	}
	switch base {
	case ".env.example", ".env.sample", ".env.template", ".env.dist":
		return false
	}
	return true
}

func hardDenyCommand(cmd string) (string, bool) {
	flat := strings.Join(strings.Fields(cmd), " ")
	if pipeToShell.MatchString(flat) {
		return "piping a download into a shell is never allowed", true
	}
	if isForkBomb(cmd) {
		return "fork bombs are never allowed", true
	}
	if ddToDev.MatchString(flat) || shredDev.MatchString(flat) {
		return "writing raw devices is never allowed", true
	}
	if mkfs.MatchString(flat) {
		return "formatting file systems (mkfs) is never allowed", true
	}
	if redirectEnv.MatchString(flat) {
		return "writing .env files is never allowed (secrets)", true
	}
	for _, seg := range segmentSplit.Split(flat, -1) {
		if dangerousRm(strings.Fields(seg)) {
			return "recursive delete of / or the home directory is never allowed", true
		}
	}
	return "", false
}

func isForkBomb(cmd string) bool {
	compact := strings.Join(strings.Fields(cmd), "")
	for _, m := range forkBomb.FindAllStringSubmatch(compact, -1) {
		name := m[1]
		if strings.Contains(compact, name+"|"+name+"&") {
			return true
		}
	}
	return false
}

// dangerousRm reports an rm that recursively deletes a root-like target.
func dangerousRm(f []string) bool {
	at := -1
	for i, w := range f {
		if w == "rm" || strings.HasSuffix(w, "/rm") {
			at = i
			break
		}
	}
	if at < 0 {
		return false
	}
	recursive := false
	var targets []string
	for _, w := range f[at+1:] {
		switch {
		case w == "--no-preserve-root":
			return true
		case w == "--recursive" || w == "-R":
			recursive = true
		case strings.HasPrefix(w, "--"):
		case strings.HasPrefix(w, "-") && len(w) > 1:
			if strings.ContainsAny(w[1:], "rR") {
				recursive = true
			}
		default:
			targets = append(targets, strings.Trim(w, `"'`))
		}
	}
	if !recursive {
		return false
	}
	for _, t := range targets {
		if rootLike(t) {
			return true
		}
	}
	return false
}

func rootLike(t string) bool {
	t = strings.TrimRight(t, "/")
	t = strings.TrimSuffix(t, "/*")
	t = strings.TrimSuffix(t, "*")
	t = strings.TrimRight(t, "/")
	switch t {
	case "", "~", "$HOME", "${HOME}", "/.", "/..":
		return true
	}
	// Top-level system directories.
	switch t {
	case "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root",
		"/sbin", "/sys", "/usr", "/var", "/Users", "/System":
		return true
	}
	return false
}
