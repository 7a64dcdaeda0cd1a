// Command dist builds a hub release: `make dist VERSION=1.2.3` runs it.
// It writes the six platform archives, checksums.txt, the ACP registry
// entry and the npm packages under -out (see internal/release).
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hubdev/hub/internal/release"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("dist", flag.ContinueOnError)
	version := fs.String("version", "", "release version, X.Y.Z")
	commit := fs.String("commit", "", "source revision")
	epoch := fs.String("epoch", os.Getenv("SOURCE_DATE_EPOCH"), "source date in Unix seconds: build stamp and every file time")
	out := fs.String("out", "dist", "output directory (emptied first)")
	baseURL := fs.String("base-url", "", "where the archives will be downloadable (default: the GitHub release of the version)")
	targets := fs.String("targets", "", "comma-separated GOOS/GOARCH list (default: all six)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	v, err := release.NormalizeVersion(*version)
	if err != nil {
		return err
	}
	secs, err := strconv.ParseInt(*epoch, 10, 64)
	if err != nil {
		return fmt.Errorf("source date %q is not Unix seconds (set SOURCE_DATE_EPOCH)", *epoch)
	}
	ts, err := parseTargets(*targets)
	if err != nil {
		return err
	}
	r := release.Release{
		Version: v, Commit: *commit, Date: time.Unix(secs, 0).UTC(),
		BaseURL: cmp.Or(strings.TrimSuffix(*baseURL, "/"), "https://github.com/hubdev/hub/releases/download/v"+v),
	}
	if err := os.RemoveAll(*out); err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	build, err := os.MkdirTemp("", "hub-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(build)
	notices, err := release.Notices(context.Background(), ".", "./cmd/hub", ts)
	if err != nil {
		return fmt.Errorf("third-party notices: %w", err)
	}
	noticesPath := filepath.Join(build, release.NoticesFile)
	if err := os.WriteFile(noticesPath, notices, 0o644); err != nil {
		return err
	}
	r.Docs = []string{"README.md", "LICENSE", noticesPath}
	bins := map[release.Target]string{}
	for _, t := range ts {
		fmt.Fprintf(os.Stderr, "== build %s\n", t)
		bin, err := r.Build(context.Background(), ".", "./cmd/hub", t, build)
		if err != nil {
			return err
		}
		bins[t] = bin
	}
	man, err := manPage(context.Background(), r, build, bins)
	if err != nil {
		return err
	}
	r.Docs = append(r.Docs, man)
	if err := r.Package(*out, bins); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "== wrote %d archives, checksums.txt, registry/hub and npm/ under %s\n", len(bins), *out)
	return nil
}

func parseTargets(s string) ([]release.Target, error) {
	if s == "" {
		return release.Targets, nil
	}
	var ts []release.Target
	for _, f := range strings.Split(s, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(f), "/")
		t := release.Target{GOOS: goos, GOARCH: goarch}
		if !ok || !slices.Contains(release.Targets, t) {
			return nil, fmt.Errorf("unknown target %q (want one of %v)", f, release.Targets)
		}
		ts = append(ts, t)
	}
	return ts, nil
}
