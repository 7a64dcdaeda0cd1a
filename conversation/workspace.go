package conversation

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/safefile"
)

// FileChange is one file a run changed and the lines it added and
// removed (0 and 0 for a binary file).
type FileChange struct {
	Path    string `json:"path"`   // from the repository root
	Status  string `json:"status"` // added, modified, deleted
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Bounds of what a snapshot keeps of the files already dirty before the
// run, to count the run's own lines.
const (
	maxKeptFile  = 1 << 20
	maxKeptTotal = 32 << 20
	maxChanges   = 1000
	maxCounted   = 200 // files whose lines are counted (two git calls each)
	maxHashed    = 256 << 20
	gitTimeout   = 30 * time.Second
)

// Snapshot is the state of a working tree's dirty files, taken before a
// turn so the files it changed, by any means, can be listed.
type Snapshot struct {
	root  string // the repository's top level; "" outside a repository
	dirty map[string]dirtyFile
}

type dirtyFile struct {
	status string
	exists bool
	sum    [32]byte
	data   []byte // nil when too large to keep
}

// TakeSnapshot is empty outside a repository or without git.
func TakeSnapshot(ctx context.Context, cwd string) *Snapshot {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	root, err := repoRoot(ctx, cwd)
	if err != nil {
		return &Snapshot{}
	}
	s := &Snapshot{root: root}
	if s.dirty, err = s.status(ctx); err != nil {
		return &Snapshot{}
	}
	return s
}

// roots caches repository top levels by directory: a snapshot delays the
// prompt, so it spawns one git, not two (5.5-7 ms each in a trace).
var roots sync.Map

func repoRoot(ctx context.Context, cwd string) (string, error) {
	if r, ok := roots.Load(cwd); ok {
		return r.(string), nil
	}
	if !mayBeRepository(cwd) {
		return "", errors.New("not in a git repository") // no .git in cwd or above: git would find none
	}
	out, err := Git(ctx, cwd, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	root := filepath.FromSlash(strings.TrimSpace(string(out)))
	roots.Store(cwd, root)
	return root, nil
}

// mayBeRepository spares a turn outside a repository a git before its
// prompt (6-12 ms in a trace; uncached: a repository may be made later).
func mayBeRepository(cwd string) bool {
	dirs := config.ProjectDirs(cwd) // up to the nearest .git, else the filesystem root
	_, err := os.Lstat(filepath.Join(dirs[len(dirs)-1], ".git"))
	return err == nil || os.Getenv("GIT_DIR") != ""
}

func (s *Snapshot) status(ctx context.Context) (map[string]dirtyFile, error) {
	out, err := Git(ctx, s.root, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	files, kept := map[string]dirtyFile{}, 0
	recs := strings.Split(string(out), "\x00")
	for i := 0; i < len(recs); i++ {
		if len(recs[i]) < 4 {
			continue
		}
		xy, path := recs[i][:2], recs[i][3:]
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // the source path follows
		}
		f := readState(s.abs(path))
		switch f.status = "modified"; {
		case xy == "??" || strings.Contains(xy, "A"):
			f.status = "added"
		case strings.Contains(xy, "D"):
			f.status = "deleted"
		}
		if kept+len(f.data) > maxKeptTotal {
			f.data = nil
		}
		kept += len(f.data)
		files[path] = f
	}
	return files, nil
}

// Changes lists the files newly dirty, or dirty before with other content
// now; nil outside a repository.
func (s *Snapshot) Changes(ctx context.Context) []FileChange {
	if s.root == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	now, err := s.status(ctx)
	if err != nil {
		return nil
	}
	for p := range s.dirty {
		if _, ok := now[p]; !ok { // clean again: reverted or committed
			now[p] = readState(s.abs(p))
		}
	}
	paths := slices.DeleteFunc(slices.Sorted(maps.Keys(now)), func(p string) bool {
		b, ok := s.dirty[p]
		return ok && b.exists == now[p].exists && b.sum == now[p].sum
	})
	paths = paths[:min(len(paths), maxChanges)]
	tmp, err := os.MkdirTemp("", "hub-changes-")
	if err != nil {
		return []FileChange{}
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	list := make([]FileChange, 0, len(paths))
	for i, p := range paths {
		c, cur := FileChange{Path: p, Status: cmp.Or(now[p].status, "modified")}, readState(s.abs(p))
		if !cur.exists {
			c.Status = "deleted"
		}
		if i < maxCounted {
			c.Added, c.Removed = s.lines(ctx, tmp, p, cur)
		}
		list = append(list, c)
	}
	return list
}

func (s *Snapshot) abs(path string) string { return filepath.Join(s.root, filepath.FromSlash(path)) }

// readState reads what a path holds without following it out of the
// tree or blocking: a symbolic link is its target's name, a FIFO or
// device only its kind.
func readState(path string) dirtyFile {
	st, err := os.Lstat(path)
	if err != nil {
		return dirtyFile{}
	}
	data := []byte(st.Mode().String())
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		data = []byte(target)
	case st.Mode().IsRegular():
		if data, err = safefile.Read(path, maxKeptFile); errors.Is(err, safefile.ErrTooLarge) {
			return dirtyFile{exists: true, sum: hashLarge(path, st)}
		}
	}
	return dirtyFile{exists: true, sum: sha256.Sum256(data), data: data}
}

// hashLarge hashes a file too large to keep, up to maxHashed bytes, with
// its size and time so a change past them still shows.
func hashLarge(path string, st fs.FileInfo) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%d %d\n", st.Size(), st.ModTime().UnixNano())
	if f, err := os.Open(path); err == nil {
		_, _ = io.Copy(h, io.LimitReader(f, maxHashed))
		_ = f.Close()
	}
	return [32]byte(h.Sum(nil))
}

// lines diffs path's content before the run (as kept, else HEAD's)
// against now's.
func (s *Snapshot) lines(ctx context.Context, tmp, path string, now dirtyFile) (added, removed int) {
	if now.exists && now.data == nil {
		return 0, 0 // too large to count
	}
	var old []byte
	if b, ok := s.dirty[path]; ok && b.data != nil {
		old = b.data
	} else if !ok || b.status != "added" {
		old, _ = Git(ctx, s.root, nil, "show", "HEAD:"+path)
	}
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	if os.WriteFile(a, old, 0o600) != nil || os.WriteFile(b, now.data, 0o600) != nil {
		return 0, 0
	}
	out, _ := Git(ctx, tmp, nil, "diff", "--no-index", "--no-ext-diff", "--no-textconv", "--numstat", "--", a, b)
	_, _ = fmt.Sscan(string(out), &added, &removed) // a binary file's "-": 0 0
	return added, removed
}

// Git returns git's stdout, also when it exits 1 with output (diff: the
// files differ). What it commits is hub's, whatever the user's identity.
func Git(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	// The repository's own config may name commands; hub's git runs none.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Env = append(append(os.Environ(), "GIT_AUTHOR_NAME=hub", "GIT_AUTHOR_EMAIL=hub@localhost",
		"GIT_COMMITTER_NAME=hub", "GIT_COMMITTER_EMAIL=hub@localhost"), env...)
	out, err := cmd.Output()
	ee, _ := err.(*exec.ExitError)
	switch {
	case err == nil, ee != nil && ee.ExitCode() == 1 && len(out) > 0:
		return out, nil
	case ee != nil:
		err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
	}
	return out, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
}
