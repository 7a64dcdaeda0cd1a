package main

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set with -ldflags -X by `make build`, `make install` and `make dist`.
var (
	version = "dev"
	commit  = ""
	date    = ""
)

// buildInfo is what `hub version` prints and ACP's agentInfo carries.
type buildInfo struct {
	Version, Commit, Date, Platform string
}

// currentBuild fills what the linker did not set from the module build
// info: `go install …@v1.2.3` stamps the module version, a build inside a
// checkout stamps the commit and its time.
func currentBuild() buildInfo {
	b := buildInfo{Version: version, Commit: commit, Date: date, Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if b.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = cmp.Or(b.Commit, s.Value)
		case "vcs.time":
			b.Date = cmp.Or(b.Date, s.Value)
		}
	}
	return b
}

// String is one line: "hub 1.2.0 (commit 0123abc, built 2026-11-25T10:00:00Z, linux/amd64)".
func (b buildInfo) String() string {
	c := cmp.Or(b.Commit, "unknown")
	c = c[:min(len(c), 12)]
	return fmt.Sprintf("hub %s (commit %s, built %s, %s)", b.Version, c, cmp.Or(b.Date, "unknown"), b.Platform)
}
