package tools

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/safefile"
)

const (
	maxMatches = 200
	maxGlob    = 500
)

// skipDirs are never searched by the Go fallbacks.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true}

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	IgnoreCase bool   `json:"ignore_case"`
}

// UseRipgrep lets tests force the Go fallback.
var UseRipgrep = true

func prepareGrep(e *Env, a grepArgs) (*Prepared, error) {
	if a.Pattern == "" {
		return nil, fmt.Errorf("%w: pattern is empty", ErrBadArgs)
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%w: pattern: %v", ErrBadArgs, err)
	}
	keep, err := fileFilter(a.Glob)
	if err != nil {
		return nil, err
	}
	root, err := e.Resolve(cmp.Or(a.Path, ".")) // the workspace unless a folder is named
	if err != nil {
		return nil, err
	}
	start := e.rel(root)
	return prepared(fmt.Sprintf("grep %q in %s", a.Pattern, start), root, 0, func(ctx context.Context) Result {
		var lines []string
		rg, err := exec.LookPath("rg")
		if UseRipgrep && err == nil && e.Sandbox.Active() { // unconfined, rg would follow a link swapped in (see ripgrep)
			lines, err = e.ripgrep(ctx, rg, a, start)
		} else {
			lines, err = e.goGrep(ctx, re, keep, start)
		}
		if err != nil {
			return failed("grep: %v", err)
		}
		return searchResult(lines, maxMatches, "matches", e.OutputCap)
	}), nil
}

func searchResult(lines []string, limit int, what string, capBytes int) Result {
	if len(lines) == 0 {
		return Result{Output: "no " + what}
	}
	more := ""
	if len(lines) > limit {
		more = fmt.Sprintf("\n[%d more %s not shown; narrow the search]", len(lines)-limit, what)
		lines = lines[:limit]
	}
	out := strings.Join(lines, "\n") + more
	if len(out) > capBytes {
		out = out[:capBytes] + "\n[output cut]"
	}
	return Result{Output: out}
}

func (e *Env) ripgrep(ctx context.Context, rg string, a grepArgs, where string) ([]string, error) {
	args := []string{"--line-number", "--no-heading", "--color", "never", "--max-columns", "500", "--max-count", "50", "--crlf", "--path-separator", "/"}
	if a.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	if a.Glob != "" {
		args = append(args, "--glob", a.Glob)
	}
	args = append(args, "-e", a.Pattern, "--", where)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	// rg opens by path, so a link swapped in since the check leads it out:
	// it runs in the sandbox, which hides the credential stores as from bash.
	w, cleanup, err := e.Sandbox.Command(e.Root, rg, args)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	p, err := proc.Start(ctx, proc.Spec{Path: w.Path, Args: w.Args, Dir: e.Root, Env: append(os.Environ(), w.Env...), Grace: time.Second})
	if err != nil {
		return nil, err
	}
	_ = p.Stdin.Close()
	var lines []string
	sc := bufio.NewScanner(p.Stdout)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if len(lines) <= maxMatches {
			l := strings.TrimSuffix(sc.Text(), "\r")
			if where == "." { // rg names files under "." as ./x; the fallback and the other tools say x
				l = strings.TrimPrefix(l, "./")
			}
			lines = append(lines, l)
		}
	}
	_, _ = io.Copy(io.Discard, p.Stdout)
	err = p.Wait()
	if err != nil && (p.ExitCode() != 1 || p.StderrTail(2) != "") { // 1 = no match; bwrap's own failure is 1 too
		return nil, fmt.Errorf("rg: %s", strings.TrimSpace(p.StderrTail(2)))
	}
	return lines, nil
}

// fileFilter gives g ripgrep's --glob meaning, so both searches pick the
// same files: a pattern without a slash matches a file's name at any depth,
// one with a slash its path from the workspace root; a leading ! negates.
func fileFilter(g string) (keep func(rel string) bool, err error) {
	p, negate := strings.CutPrefix(filepath.ToSlash(g), "!")
	p = strings.TrimPrefix(p, "/")
	if !doublestar.ValidatePattern(p) {
		return nil, fmt.Errorf("%w: glob %q is not a valid pattern", ErrBadArgs, g)
	}
	byName := !strings.Contains(p, "/")
	return func(rel string) bool {
		if byName {
			rel = path.Base(rel)
		}
		return g == "" || doublestar.MatchUnvalidated(p, rel) != negate
	}, nil
}

func (e *Env) goGrep(ctx context.Context, re *regexp.Regexp, keep func(string) bool, start string) ([]string, error) {
	var lines []string
	err := e.walk(ctx, start, func(name string) bool {
		if !keep(name) {
			return true
		}
		data, err := safefile.ReadIn(e.Root, name, maxFileBytes)
		if err != nil || isBinary(data) {
			return true
		}
		for i, l := range strings.Split(string(data), "\n") {
			l = strings.TrimSuffix(l, "\r") // so $ matches at a \r\n line end, as with rg --crlf
			if re.MatchString(l) {
				lines = append(lines, fmt.Sprintf("%s:%d:%s", name, i+1, l[:min(len(l), 500)]))
			}
		}
		return len(lines) <= maxMatches
	})
	return lines, err
}

// walk visits the regular files at or under start in the workspace's
// os.Root, so no link leads out, until visit returns false.
func (e *Env) walk(ctx context.Context, start string, visit func(name string) bool) error {
	root, err := os.OpenRoot(e.Root)
	if err != nil {
		return err
	}
	defer root.Close()
	return fs.WalkDir(root.FS(), start, func(name string, d fs.DirEntry, err error) error {
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && name == start:
			return err
		case err != nil:
			return nil
		case d.IsDir() && name != start && skipDirs[d.Name()]:
			return fs.SkipDir
		case !d.Type().IsRegular() || visit(name): // folders are not regular
			return nil
		}
		return fs.SkipAll
	})
}

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

func prepareGlob(e *Env, a globArgs) (*Prepared, error) {
	if a.Pattern == "" {
		return nil, fmt.Errorf("%w: pattern is empty", ErrBadArgs)
	}
	if filepath.IsAbs(a.Pattern) || strings.Contains(a.Pattern, "..") {
		return nil, fmt.Errorf("%w: pattern %q must be relative to the workspace", ErrOutsideWorkspace, a.Pattern)
	}
	root, err := e.Resolve(cmp.Or(a.Path, "."))
	if err != nil {
		return nil, err
	}
	pattern := filepath.ToSlash(a.Pattern)
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("%w: glob %q is not a valid pattern", ErrBadArgs, a.Pattern)
	}
	return prepared("glob "+a.Pattern, root, 0, func(ctx context.Context) Result {
		var found []string
		start := e.rel(root)
		err := e.walk(ctx, start, func(name string) bool {
			rel, _ := filepath.Rel(start, name)
			if doublestar.MatchUnvalidated(pattern, filepath.ToSlash(rel)) {
				found = append(found, name)
			}
			return len(found) <= maxGlob*4
		})
		if err != nil {
			return failed("glob: %v", err)
		}
		slices.Sort(found)
		return searchResult(found, maxGlob, "files", e.OutputCap)
	}), nil
}
