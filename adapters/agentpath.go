package adapters

import (
	"path"
	"path/filepath"
	"strings"
)

// AgentPath makes p, a path an agent reported, absolute against the agent's cwd in the
// agent's own path style: a POSIX cwd (an agent on Linux or macOS, or a recording made
// there replayed anywhere) joins with "/"; otherwise the host's rules apply, where a
// Windows path rooted without a drive (\x) is on the cwd's drive. ok is false when p is
// relative and there is no cwd.
func AgentPath(cwd, p string) (abs string, ok bool) {
	if p == "" {
		return "", false
	}
	if strings.HasPrefix(cwd, "/") || (cwd == "" && strings.HasPrefix(p, "/") && !filepath.IsAbs(p) && filepath.VolumeName(p) == "") {
		if path.IsAbs(p) {
			return path.Clean(p), true
		}
		return path.Join(cwd, p), true // here cwd starts with /
	}
	switch {
	case filepath.IsAbs(p):
		return filepath.Clean(p), true
	case cwd == "":
		return "", false
	case filepath.VolumeName(p) == "" && (strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "/")):
		return filepath.Join(filepath.VolumeName(cwd), p), true
	}
	return filepath.Join(cwd, p), true
}
