package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FileChange is one file a run changed (Summary.FilesChanged): its path
// from the repository root, and the lines added and removed by the run
// (0 and 0 for a binary file).
type FileChange struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // added, modified, deleted
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Bounds of what a snapshot keeps of the files already dirty before the
// run: their content, to count the run's own lines, up to these sizes.
const (
	maxKeptFile  = 1 << 20
	maxKeptTotal = 32 << 20
	maxChanges   = 1000
	gitTimeout   = 30 * time.Second
)

// treeSnapshot is the state of the working tree's dirty files.
type treeSnapshot struct {
	root  string // the repository's top level; "" outside a repository
	dirty map[string]dirtyFile
}

type dirtyFile struct {
	status string
	exists bool
	sum    [32]byte
	data   []byte // nil when too large to keep
}

// snapshotTree records cwd's repository's dirty files; a directory outside
// a repository (or without git) gives an empty snapshot.
func snapshotTree(ctx context.Context, cwd string) *treeSnapshot {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	out, err := gitOut(ctx, cwd, "rev-parse", "--show-toplevel")
	if err != nil {
		return &treeSnapshot{}
	}
	s := &treeSnapshot{root: filepath.FromSlash(strings.TrimSpace(string(out)))}
	s.dirty, err = s.status(ctx)
	if err != nil {
		return &treeSnapshot{}
	}
	return s
}

// status reads the dirty files with their content.
func (s *treeSnapshot) status(ctx context.Context) (map[string]dirtyFile, error) {
	out, err := gitOut(ctx, s.root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	files := map[string]dirtyFile{}
	kept := 0
	recs := strings.Split(string(out), "\x00")
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if len(rec) < 4 {
			continue
		}
		xy, path := rec[:2], rec[3:]
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // the source path follows
		}
		f := dirtyFile{status: statusWord(xy)}
		if data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(path))); err == nil {
			f.exists, f.sum = true, sha256.Sum256(data)
			if len(data) <= maxKeptFile && kept+len(data) <= maxKeptTotal {
				f.data, kept = data, kept+len(data)
			}
		}
		files[path] = f
	}
	return files, nil
}

func statusWord(xy string) string {
	switch {
	case xy == "??" || strings.Contains(xy, "A"):
		return "added"
	case strings.Contains(xy, "D"):
		return "deleted"
	}
	return "modified"
}

// changes lists the files that differ from the snapshot: newly dirty, or
// dirty before with other content now. nil outside a repository.
func (s *treeSnapshot) changes(ctx context.Context) []FileChange {
	if s.root == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	now, err := s.status(ctx)
	if err != nil {
		return nil
	}
	var paths []string
	for p, f := range now {
		if b, ok := s.dirty[p]; !ok || b.exists != f.exists || b.sum != f.sum {
			paths = append(paths, p)
		}
	}
	for p, b := range s.dirty {
		if _, ok := now[p]; !ok { // clean again: reverted or committed
			if cur, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(p))); err != nil || sha256.Sum256(cur) != b.sum {
				paths = append(paths, p)
			}
		}
	}
	slices.Sort(paths)
	paths = paths[:min(len(paths), maxChanges)]
	tmp, err := os.MkdirTemp("", "hub-changes-")
	if err != nil {
		return []FileChange{}
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	list := make([]FileChange, 0, len(paths))
	for _, p := range paths {
		c := FileChange{Path: p, Status: "modified"}
		if f, ok := now[p]; ok {
			c.Status = f.status
		}
		if _, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(p))); err != nil {
			c.Status = "deleted"
		}
		c.Added, c.Removed = s.lines(ctx, tmp, p)
		list = append(list, c)
	}
	return list
}

// lines counts the lines the run added to and removed from path: its
// content before the run (as kept, else HEAD's) against its content now.
func (s *treeSnapshot) lines(ctx context.Context, tmp, path string) (added, removed int) {
	var old []byte
	if b, ok := s.dirty[path]; ok && b.data != nil {
		old = b.data
	} else if !ok || b.status != "added" {
		old, _ = gitOut(ctx, s.root, "show", "HEAD:"+path)
	}
	cur, _ := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(path)))
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	if os.WriteFile(a, old, 0o600) != nil || os.WriteFile(b, cur, 0o600) != nil {
		return 0, 0
	}
	out, _ := gitOut(ctx, tmp, "diff", "--no-index", "--numstat", "--", a, b) // exits 1 when they differ
	fields := strings.Fields(string(out))
	if len(fields) < 2 {
		return 0, 0
	}
	added, _ = strconv.Atoi(fields[0]) // "-" for a binary file
	removed, _ = strconv.Atoi(fields[1])
	return added, removed
}

// gitOut runs git in dir and returns its stdout, also when git exits 1.
func gitOut(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && len(out) > 0 {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
