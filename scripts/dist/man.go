package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/hubdev/hub/internal/release"
)

// manPage writes hub.1, the manual page `hub man` prints, into dir and
// returns its path, for the archives to carry next to the binary. hub
// runs in an empty directory with HOME=~ and no XDG or HUB_ variables, so
// no path or config of the build machine gets into the page. The host's
// binary among bins runs; a host that is no release target builds its own.
func manPage(ctx context.Context, r release.Release, dir string, bins map[release.Target]string) (string, error) {
	host := release.Target{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	bin, err := bins[host], error(nil)
	if bin == "" {
		if bin, err = r.Build(ctx, ".", "./cmd/hub", host, filepath.Join(dir, "man")); err != nil {
			return "", fmt.Errorf("build hub for its man page: %w", err)
		}
	}
	empty := filepath.Join(dir, "man-cwd")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, bin, "man")
	cmd.Dir = empty
	cmd.Env = []string{"HOME=~", "PATH=", "SHELL="}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("hub man: %w: %s", err, errb.String())
	}
	page := filepath.Join(dir, "hub.1")
	return page, os.WriteFile(page, out.Bytes(), 0o644)
}
