package bestof

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/hubdev/hub/conversation"
)

var git = conversation.Git

type repo struct {
	top   string // the working tree's root
	rel   string // the cwd below top
	state string // the tree of what the working tree held (see tree)
	base  string // a commit of state on HEAD: every candidate starts from it

	// addMu makes worktrees one at a time: git worktree add reads every
	// other worktree's metadata, and fails on one being made meanwhile.
	addMu sync.Mutex
}

func openRepo(ctx context.Context, cwd string) (*repo, error) {
	out, err := git(ctx, cwd, nil, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return nil, fmt.Errorf("not a git repository: %s", cwd)
	}
	top, prefix, _ := strings.Cut(strings.TrimSpace(string(out)), "\n") // git's prefix: cwd below top, "" at top
	r := &repo{top: top, rel: cmp.Or(prefix, ".")}
	if _, err := git(ctx, r.top, nil, "rev-parse", "HEAD"); err != nil {
		return nil, fmt.Errorf("%s has no commit yet: %w", r.top, err)
	}
	if r.state, err = r.tree(ctx); err != nil {
		return nil, err
	}
	base, err := git(ctx, r.top, nil, "commit-tree", r.state, "-p", "HEAD", "-m", "hub: the working tree the run started from")
	r.base = strings.TrimSpace(string(base))
	return r, err
}

// tree writes every file of the working tree git does not ignore as a tree
// object, through a copy of the user's index (its stat data spares reading
// unchanged files).
func (r *repo) tree(ctx context.Context) (string, error) {
	dir, err := git(ctx, r.top, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", err
	}
	index, _ := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "index")) // none: every file is read
	f, err := os.CreateTemp("", "hub-index-")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(index)
	if err = cmp.Or(err, f.Close()); err != nil {
		return "", err
	}
	env := []string{"GIT_INDEX_FILE=" + f.Name()}
	if _, err := git(ctx, r.top, env, "add", "-A"); err != nil {
		return "", err
	}
	out, err := git(ctx, r.top, env, "write-tree")
	return strings.TrimSpace(string(out)), err
}

func (r *repo) worktree(ctx context.Context, dir, branch string) error {
	r.addMu.Lock()
	defer r.addMu.Unlock()
	_, err := git(ctx, r.top, nil, "worktree", "add", "-q", "-b", branch, dir, r.base)
	return err
}

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
	if branch != "" {
		_, berr := git(ctx, r.top, nil, "branch", "-D", branch)
		err = cmp.Or(err, berr)
	}
	return err
}
