package bestof

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// errNotRepo means the working directory is not in a git repository.
var errNotRepo = errors.New("not a git repository")

// gitIdentity lets hub commit in a worktree whatever the user's config.
var gitIdentity = []string{"GIT_AUTHOR_NAME=hub", "GIT_AUTHOR_EMAIL=hub@localhost",
	"GIT_COMMITTER_NAME=hub", "GIT_COMMITTER_EMAIL=hub@localhost"}

// git runs git in dir with stdin and returns its stdout.
func git(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), gitIdentity...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// repo is the user's repository as the run found it.
type repo struct {
	top    string // the working tree's root
	rel    string // the cwd below top
	head   string // HEAD's commit
	dirty  []byte // git diff HEAD --binary: tracked changes
	others []string
	state  string // a hash of HEAD, the tracked changes and the untracked files

	// addMu makes worktrees one at a time: git worktree add reads every
	// other worktree's metadata, and fails on one being made meanwhile.
	addMu sync.Mutex
}

// openRepo reads the repository cwd is in, and its uncommitted changes.
func openRepo(ctx context.Context, cwd string) (*repo, error) {
	top, err := git(ctx, cwd, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errNotRepo, cwd)
	}
	r := &repo{top: strings.TrimSpace(string(top))}
	abs, _ := filepath.Abs(cwd)
	real, _ := filepath.EvalSymlinks(abs)
	topReal, _ := filepath.EvalSymlinks(r.top)
	if r.rel, err = filepath.Rel(topReal, real); err != nil || strings.HasPrefix(r.rel, "..") {
		r.rel = "."
	}
	head, err := git(ctx, r.top, nil, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("%s has no commit yet: %w", r.top, err)
	}
	r.head = strings.TrimSpace(string(head))
	r.state, err = r.snapshot(ctx)
	return r, err
}

// snapshot hashes what the working tree holds now and keeps the changes.
func (r *repo) snapshot(ctx context.Context) (string, error) {
	head, err := git(ctx, r.top, nil, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	dirty, err := git(ctx, r.top, nil, "diff", "HEAD", "--binary")
	if err != nil {
		return "", err
	}
	list, err := git(ctx, r.top, nil, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(head)
	h.Write(dirty)
	var others []string
	for _, f := range strings.Split(string(list), "\x00") {
		if f == "" {
			continue
		}
		others = append(others, f)
		h.Write([]byte(f))
		if data, err := os.ReadFile(filepath.Join(r.top, f)); err == nil {
			h.Write(data)
		}
	}
	r.dirty, r.others = dirty, others
	return hex.EncodeToString(h.Sum(nil)), nil
}

// unchanged reports whether the working tree is as the run found it.
func (r *repo) unchanged(ctx context.Context) bool {
	c := &repo{top: r.top}
	s, err := c.snapshot(ctx)
	return err == nil && s == r.state
}

// worktree makes a worktree of HEAD on a new branch, carries the user's
// uncommitted changes into it, and commits them there as the base the
// candidate's change is measured from.
func (r *repo) worktree(ctx context.Context, dir, branch string) (base string, err error) {
	r.addMu.Lock()
	_, err = git(ctx, r.top, nil, "worktree", "add", "-q", "-b", branch, dir, r.head)
	r.addMu.Unlock()
	if err != nil {
		return "", err
	}
	if len(r.dirty) > 0 {
		if _, err := git(ctx, dir, r.dirty, "apply", "--binary", "--whitespace=nowarn"); err != nil {
			return "", err
		}
	}
	for _, f := range r.others {
		if err := copyFile(filepath.Join(r.top, f), filepath.Join(dir, f)); err != nil {
			return "", err
		}
	}
	return commitAll(ctx, dir, "hub: the working tree the run started from")
}

// commitAll commits everything in dir and returns the commit.
func commitAll(ctx context.Context, dir, msg string) (string, error) {
	if _, err := git(ctx, dir, nil, "add", "-A"); err != nil {
		return "", err
	}
	if _, err := git(ctx, dir, nil, "commit", "-q", "--allow-empty", "--no-verify", "-m", msg); err != nil {
		return "", err
	}
	out, err := git(ctx, dir, nil, "rev-parse", "HEAD")
	return strings.TrimSpace(string(out)), err
}

// numstat sums git diff --numstat base..head: files, lines added, removed.
func numstat(ctx context.Context, dir, base, head string) (files, added, removed int, err error) {
	out, err := git(ctx, dir, nil, "diff", "--numstat", base, head)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		files++
		a, _ := strconv.Atoi(f[0]) // "-" for binary files
		d, _ := strconv.Atoi(f[1])
		added, removed = added+a, removed+d
	}
	return files, added, removed, nil
}

// remove deletes a worktree and its branch ("" keeps the branch).
func (r *repo) remove(ctx context.Context, dir, branch string) error {
	_, err := git(ctx, r.top, nil, "worktree", "remove", "--force", dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		_, _ = git(ctx, r.top, nil, "worktree", "prune")
	}
	if branch == "" {
		return err
	}
	if _, berr := git(ctx, r.top, nil, "branch", "-D", branch); berr != nil && err == nil {
		err = berr
	}
	return err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil || st.IsDir() {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
