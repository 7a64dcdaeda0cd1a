// Package release turns hub binaries into what a release publishes: one
// archive per platform (.tar.gz, .zip for Windows) with checksums.txt, an
// entry for the ACP agent registry, and an npm package set (one package per
// platform carrying the binary, and a launcher that picks one). Every byte
// depends only on the inputs, so two runs on the same commit are identical.
package release

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// ErrVersion means the version is not semantic (X.Y.Z, with an optional
// pre-release), which the registry and npm both require.
var ErrVersion = errors.New("version must be X.Y.Z (semantic versioning)")

// Target is one platform a release ships for.
type Target struct{ GOOS, GOARCH string }

// Targets are the six platforms of a release.
var Targets = []Target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

func (t Target) String() string { return t.GOOS + "/" + t.GOARCH }

// Exe is the binary's file name on the target.
func (t Target) Exe() string {
	if t.GOOS == "windows" {
		return "hub.exe"
	}
	return "hub"
}

// Archive is the archive's file name for version v.
func (t Target) Archive(v string) string {
	ext := ".tar.gz"
	if t.GOOS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("hub_%s_%s_%s%s", v, t.GOOS, t.GOARCH, ext)
}

// registryPlatform is the ACP registry's name for the target.
func (t Target) registryPlatform() string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[t.GOARCH]
	return t.GOOS + "-" + arch
}

// npmOS and npmCPU are the target in Node's process.platform/arch terms,
// which npm's "os" and "cpu" fields use.
func (t Target) npmOS() string { return cmp.Or(map[string]string{"windows": "win32"}[t.GOOS], t.GOOS) }

func (t Target) npmCPU() string { return cmp.Or(map[string]string{"amd64": "x64"}[t.GOARCH], t.GOARCH) }

// Release describes one release.
type Release struct {
	Version string    // X.Y.Z, no leading v
	Commit  string    // full revision
	Date    time.Time // source date: build stamp and every file time
	// BaseURL is where the archives will be downloadable, for the registry
	// entry (no trailing slash).
	BaseURL string
	// Docs are files copied next to the binary in archives and packages.
	Docs []string
}

var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// NormalizeVersion strips a leading "v" and checks the rest is semantic.
func NormalizeVersion(v string) (string, error) {
	v = strings.TrimPrefix(v, "v")
	if !semver.MatchString(v) {
		return "", fmt.Errorf("%w, got %q: run make dist VERSION=1.2.3", ErrVersion, v)
	}
	return v, nil
}

// Build compiles pkg (run in dir) for t into out, static and reproducible:
// no cgo, no local paths, no VCS stamp beyond the commit given, the build
// date fixed to the source date.
func (r Release) Build(ctx context.Context, dir, pkg string, t Target, out string) (string, error) {
	bin := filepath.Join(out, t.GOOS+"_"+t.GOARCH, t.Exe())
	ldflags := fmt.Sprintf("-s -w -buildid= -X main.version=%s -X main.commit=%s -X main.date=%s",
		r.Version, r.Commit, r.Date.UTC().Format(time.RFC3339))
	if _, err := goCmd(ctx, dir, t, "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, pkg); err != nil {
		return "", fmt.Errorf("build %s for %s: %w", pkg, t, err)
	}
	return bin, nil
}
