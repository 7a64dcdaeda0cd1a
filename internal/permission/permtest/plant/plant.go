// Package plant writes the files the permission shape tests need in their
// workspace (internal/permission/testdata/planted.txt): git repositories
// whose config an untrusted tarball would bring. It imports nothing of
// hub's, so that the permission package's own tests use it too. Only
// tests import it.
package plant

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Files writes the files listed in file ("repo<TAB>GITDIR<TAB>CONFIG" or
// "file<TAB>PATH<TAB>CONTENT", Go string literals) under dir.
func Files(file, dir string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("plant: %w", err)
	}
	for n, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 || cols[0] != "repo" && cols[0] != "file" {
			return fmt.Errorf("%s:%d: want repo|file<TAB>PATH<TAB>CONTENT", file, n+1)
		}
		content, err := strconv.Unquote(cols[2])
		if err != nil {
			return fmt.Errorf("%s:%d: %w", file, n+1, err)
		}
		files := map[string]string{cols[1]: content}
		if cols[0] == "repo" {
			files = map[string]string{cols[1] + "/HEAD": "ref: refs/heads/main\n", cols[1] + "/objects/x": "", cols[1] + "/refs/x": "", cols[1] + "/config": content}
		}
		for f, c := range files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fmt.Errorf("plant: %w", err)
			}
			if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
				return fmt.Errorf("plant: %w", err)
			}
		}
	}
	return nil
}
