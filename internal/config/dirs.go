package config

import (
	"cmp"
	"os"
	"path/filepath"
	"runtime"
)

// Dirs are where hub keeps its files for one user.
type Dirs struct {
	Config string // config.toml, user skills
	State  string // the session index
	Cache  string // what can be rebuilt (doctor's report)
}

func hostDirs() Dirs {
	home, _ := os.UserHomeDir()
	return dirsFor(runtime.GOOS, os.Getenv, home)
}

// dirsFor follows each OS's convention: XDG on Linux and the other Unixes,
// ~/Library on macOS, %APPDATA% (roaming config) and %LOCALAPPDATA%
// (machine-local state and cache) on Windows. An XDG_*_HOME the user set
// wins everywhere, so one layout can be shared across machines.
func dirsFor(goos string, getenv func(string) string, home string) Dirs {
	var d Dirs
	switch goos {
	case "darwin":
		support := filepath.Join(home, "Library", "Application Support", "hub")
		d = Dirs{Config: support, State: filepath.Join(support, "state"), Cache: filepath.Join(home, "Library", "Caches", "hub")}
	case "windows":
		roaming := cmp.Or(getenv("APPDATA"), filepath.Join(home, "AppData", "Roaming"))
		local := cmp.Or(getenv("LOCALAPPDATA"), filepath.Join(home, "AppData", "Local"))
		d = Dirs{Config: filepath.Join(roaming, "hub"), State: filepath.Join(local, "hub", "state"), Cache: filepath.Join(local, "hub", "cache")}
	default:
		d = Dirs{Config: filepath.Join(home, ".config", "hub"), State: filepath.Join(home, ".local", "state", "hub"), Cache: filepath.Join(home, ".cache", "hub")}
	}
	for env, dir := range map[string]*string{"XDG_CONFIG_HOME": &d.Config, "XDG_STATE_HOME": &d.State, "XDG_CACHE_HOME": &d.Cache} {
		if v := getenv(env); v != "" {
			*dir = filepath.Join(v, "hub")
		}
	}
	return d
}

// ProjectRoot is the project cwd belongs to: the repository root (the
// nearest directory holding .git), else cwd itself.
func ProjectRoot(cwd string) string {
	dirs := ProjectDirs(cwd)
	root := dirs[len(dirs)-1]
	if _, err := os.Lstat(filepath.Join(root, ".git")); err == nil {
		return root
	}
	return dirs[0]
}
