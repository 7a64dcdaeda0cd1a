package conversation

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestTakeSnapshot_GitRunsOnlyWhereARepositoryMayBe(t *testing.T) {
	tests := []struct {
		name    string
		gitDir  string // made below the temporary root
		cwd     string
		wantGit bool
	}{
		{name: "outside any repository", cwd: "work/sub", wantGit: false},
		{name: "in a repository's subdirectory", gitDir: "work/.git", cwd: "work/sub", wantGit: true},
		{name: "in a worktree (.git is a file)", gitDir: "work/.git:file", cwd: "work", wantGit: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, bin := t.TempDir(), t.TempDir()
			ran := filepath.Join(t.TempDir(), "git-ran")
			proctest.Install(t, bin, "git", "touch:"+ran, "exit:128")
			t.Setenv("PATH", bin)
			t.Setenv("GIT_DIR", "")
			cwd := filepath.Join(root, filepath.FromSlash(tt.cwd))
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			if path, isFile := cutFile(filepath.Join(root, filepath.FromSlash(tt.gitDir))); tt.gitDir != "" {
				var err error
				if isFile {
					err = os.WriteFile(path, []byte("gitdir: elsewhere\n"), 0o644)
				} else {
					err = os.MkdirAll(path, 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if s := TakeSnapshot(context.Background(), cwd); s.root != "" {
				t.Fatalf("root = %q, want none (the fake git fails)", s.root)
			}
			if _, err := os.Stat(ran); (err == nil) != tt.wantGit {
				t.Fatalf("git ran = %v, want %v", err == nil, tt.wantGit)
			}
		})
	}
}

// cutFile strips a ":file" suffix, telling whether it was there.
func cutFile(p string) (string, bool) {
	if len(p) > 5 && p[len(p)-5:] == ":file" {
		return p[:len(p)-5], true
	}
	return p, false
}
