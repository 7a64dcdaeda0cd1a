package tools

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// globTree is a workspace with files at several depths; every file holds
// the word "hit".
func globTree(t *testing.T) *Env {
	t.Helper()
	e := newTestEnv(t)
	for _, f := range []string{"a.ts", "src/b.tsx", "src/c.js", "src/deep/d.ts", "a/x.go", "b/x.go", "c/x.go", "sub/src/e.tsx"} {
		p := filepath.Join(e.Root, filepath.FromSlash(f))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("hit\n"), 0o644))
	}
	return e
}

// grepFiles are the files a grep result names, sorted (ripgrep searches in
// parallel, so its order varies).
func grepFiles(out string) string {
	if out == "no matches" {
		return ""
	}
	var files []string
	for _, l := range strings.Split(out, "\n") {
		files = append(files, strings.TrimSuffix(l, ":1:hit"))
	}
	sort.Strings(files)
	return strings.Join(files, " ")
}

// The expected files are what ripgrep 13 picks for each --glob.
var grepGlobTests = []struct{ glob, want string }{
	{"**/*.{ts,tsx}", "a.ts src/b.tsx src/deep/d.ts sub/src/e.tsx"},
	{"*.{ts,tsx}", "a.ts src/b.tsx src/deep/d.ts sub/src/e.tsx"},
	{"[ab]/*.go", "a/x.go b/x.go"},
	{"[!a]/*.go", "b/x.go c/x.go"},
	{"{a,b}/x.go", "a/x.go b/x.go"},
	{"*.go", "a/x.go b/x.go c/x.go"},
	{"src/*.tsx", "src/b.tsx"},
	{"/src/*.tsx", "src/b.tsx"},
	{"**/src/*.tsx", "src/b.tsx sub/src/e.tsx"},
	{"src/**", "src/b.tsx src/c.js src/deep/d.ts"},
	{"src/**/*.ts", "src/deep/d.ts"},
	{"!*.go", "a.ts src/b.tsx src/c.js src/deep/d.ts sub/src/e.tsx"},
	{"*.rs", ""},
}

func TestGrep_GlobPicksTheSameFilesWithAndWithoutRipgrep(t *testing.T) {
	defer func() { UseRipgrep = true }()
	for _, rg := range []bool{false, true} {
		if _, err := exec.LookPath("rg"); rg && err != nil {
			t.Log("rg not on PATH: only the Go search is checked")
			continue
		}
		UseRipgrep = rg
		e := globTree(t)
		for _, tt := range grepGlobTests {
			r, err := runTool(t, e, "grep", `{"pattern":"hit","glob":`+quote(tt.glob)+`}`)
			if err != nil || r.Failed {
				t.Fatalf("rg=%v glob %q: %v %q", rg, tt.glob, err, r.Output)
			}
			if got := grepFiles(r.Output); got != tt.want {
				t.Errorf("rg=%v glob %q: files %q, want %q", rg, tt.glob, got, tt.want)
			}
		}
	}
}

func TestGlob_DoublestarPatterns(t *testing.T) {
	e := globTree(t)
	tests := []struct{ pattern, want string }{
		{"**/*.{ts,tsx}", "a.ts\nsrc/b.tsx\nsrc/deep/d.ts\nsub/src/e.tsx"},
		{"*.ts", "a.ts"},
		{"[ab]/*.go", "a/x.go\nb/x.go"},
		{"[^a]/*.go", "b/x.go\nc/x.go"},
		{"src/**/*.ts", "src/deep/d.ts"},
		{"**/src/*", "src/b.tsx\nsrc/c.js\nsub/src/e.tsx"},
		{"*.rs", "no files"},
	}
	for _, tt := range tests {
		r, err := runTool(t, e, "glob", `{"pattern":`+quote(tt.pattern)+`}`)
		if err != nil || r.Output != tt.want {
			t.Errorf("glob %q: %q (%v), want %q", tt.pattern, r.Output, err, tt.want)
		}
	}
}

func TestGlobAndGrep_RefuseABadPattern(t *testing.T) {
	e := globTree(t)
	for _, call := range [][2]string{{"glob", `{"pattern":"src/[a"}`}, {"grep", `{"pattern":"hit","glob":"{a,b"}`}} {
		if _, err := runTool(t, e, call[0], call[1]); !errors.Is(err, ErrBadArgs) {
			t.Errorf("%s %s: %v, want ErrBadArgs", call[0], call[1], err)
		}
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }
