package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// KnownDirs are where package managers put agent CLIs when the PATH an
// editor starts hub with does not reach them: npm's global prefix, bun,
// pnpm, Homebrew, scoop, winget.
func KnownDirs(goos string, env func(string) string, home string) []string {
	j := filepath.Join
	switch goos {
	case "windows":
		dirs := []string{}
		if appdata := env("APPDATA"); appdata != "" {
			dirs = append(dirs, j(appdata, "npm"))
		}
		if local := env("LOCALAPPDATA"); local != "" {
			dirs = append(dirs, j(local, "pnpm"), j(local, "Microsoft", "WinGet", "Links"))
		}
		if s := env("SCOOP"); s != "" {
			dirs = append(dirs, j(s, "shims"))
		}
		if home != "" {
			dirs = append(dirs, j(home, "scoop", "shims"), j(home, ".bun", "bin"))
		}
		return dirs
	case "darwin":
		return append([]string{"/opt/homebrew/bin", "/usr/local/bin"}, homeDirs(home)...)
	default:
		return append([]string{"/usr/local/bin", "/home/linuxbrew/.linuxbrew/bin"}, homeDirs(home)...)
	}
}

func homeDirs(home string) []string {
	if home == "" {
		return nil
	}
	j := filepath.Join
	return []string{j(home, ".local", "bin"), j(home, ".npm-global", "bin"), j(home, ".bun", "bin"), j(home, ".volta", "bin")}
}

// LookPath is exec.LookPath, then the KnownDirs of this OS: an editor
// started from the Dock or Start menu gives hub a PATH without the
// directories npm or Homebrew install agent CLIs to.
func LookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err == nil || strings.ContainsAny(name, `/\`) {
		return path, err
	}
	home, _ := os.UserHomeDir()
	for _, dir := range KnownDirs(runtime.GOOS, os.Getenv, home) {
		if p, derr := exec.LookPath(filepath.Join(dir, name)); derr == nil {
			return p, nil
		}
	}
	return "", err
}
