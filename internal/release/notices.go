package release

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// NoticesFile is the name of the third-party notices in archives and packages.
const NoticesFile = "THIRD_PARTY_NOTICES"

// noticeNames are the files of a module whose text a notice carries, by
// upper-case name without extension.
var noticeNames = map[string]bool{"LICENSE": true, "LICENCE": true, "COPYING": true, "NOTICE": true, "PATENTS": true}

// Notices returns the third-party notices for pkg (run in dir) as built for
// targets: the license texts of the Go standard library and of every module
// whose packages the binary links on any of the targets (test and tool
// dependencies are not linked, so not named). A linked module without a
// license file is an error: the release would ship code it has no notice for.
func Notices(ctx context.Context, dir, pkg string, targets []Target) ([]byte, error) {
	mods := map[string]string{} // "path version" -> module dir
	for _, t := range targets {
		out, err := goCmd(ctx, dir, t, "list", "-deps", "-f",
			"{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}\t{{.Dir}}{{end}}{{end}}", pkg)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if mod, mdir, ok := strings.Cut(l, "\t"); ok {
				mods[strings.TrimSpace(mod)] = mdir
			}
		}
	}
	env, err := goCmd(ctx, dir, Target{}, "env", "GOROOT", "GOVERSION")
	if err != nil {
		return nil, err
	}
	goroot, goversion, _ := strings.Cut(strings.TrimSpace(env), "\n")
	var b bytes.Buffer
	fmt.Fprintf(&b, "hub is built with the Go standard library and the modules below.\nTheir license and notice texts follow.\n")
	if err := appendNotice(&b, "Go standard library ("+goversion+")", goroot); err != nil {
		return nil, err
	}
	for _, m := range slices.Sorted(maps.Keys(mods)) {
		if err := appendNotice(&b, m, mods[m]); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// appendNotice appends title and the license and notice files of dir.
func appendNotice(b *bytes.Buffer, title, dir string) error {
	des, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("license of %s: %w", title, err)
	}
	var files []string
	for _, de := range des {
		name := strings.ToUpper(strings.TrimSuffix(de.Name(), filepath.Ext(de.Name())))
		if de.Type().IsRegular() && noticeNames[name] {
			files = append(files, de.Name())
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("%s has no LICENSE, COPYING or NOTICE file in %s: the release cannot name its license", title, dir)
	}
	fmt.Fprintf(b, "\n%s\n%s\n", strings.Repeat("=", 78), title)
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return fmt.Errorf("license of %s: %w", title, err)
		}
		fmt.Fprintf(b, "%s\n-- %s --\n\n%s\n", strings.Repeat("=", 78), f, bytes.TrimRight(text, "\n"))
	}
	return nil
}

// goCmd runs the go command in dir for target t (the host's when zero).
func goCmd(ctx context.Context, dir string, t Target, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
	if t != (Target{}) {
		cmd.Env = append(cmd.Env, "GOOS="+t.GOOS, "GOARCH="+t.GOARCH)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
