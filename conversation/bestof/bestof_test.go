package bestof

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestMain(m *testing.M) { proctest.Main(m, nil) }

// Run hands each candidate's turn to Options.Run in the candidate's own
// worktree, named, with the editor's answerer naming it; it ranks them by
// what they changed and the exit codes Run returned, and applies the
// winner.
func TestRun_RunsEachCandidateInItsWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("best of N needs git, which is not on PATH")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		if out, err := git(context.Background(), dir, nil, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	reg := adapters.NewRegistry()
	reg.Register(replay.New(""))
	var mu sync.Mutex
	var ran, asked []string
	run := func(ctx context.Context, c CandidateRun) CandidateResult {
		mu.Lock()
		ran = append(ran, c.Name+" "+c.Agent+" "+c.Prompt)
		mu.Unlock()
		c.Ask.Answer(ctx, conversation.Question{})
		if !strings.Contains(c.Cwd, "hub-compare-") {
			t.Errorf("%s runs in %s, not a worktree of its own", c.Name, c.Cwd)
		}
		lines := map[string]string{"replay-1": "a\n", "replay-2": "a\nb\n"}[c.Name]
		if err := os.WriteFile(filepath.Join(c.Cwd, "out.txt"), []byte(lines), 0o644); err != nil {
			t.Error(err)
		}
		return CandidateResult{ExitCode: conversation.ExitOK}
	}
	s := Run(context.Background(), Options{Candidate: CandidateRun{Registry: reg, Cwd: dir, Prompt: "write"}, Run: run,
		Agents: []string{"replay"}, N: 2, Apply: true, Ask: func(_ context.Context, candidate string, _ conversation.Question) conversation.Reply {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, candidate)
			return conversation.Reply{}
		}})
	slices.Sort(ran)
	slices.Sort(asked)
	if !slices.Equal(ran, []string{"replay-1 replay write", "replay-2 replay write"}) || !slices.Equal(asked, []string{"replay-1", "replay-2"}) {
		t.Fatalf("ran %q, asked for %q", ran, asked)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "out.txt")); s.Winner != "replay-1" || !s.Applied || string(got) != "a\n" {
		t.Fatalf("winner %q applied %v (%q), error %q", s.Winner, s.Applied, got, s.Error)
	}
}

// A candidate runs in the directory of its worktree that the user's
// directory is in its repository, also when the user reached it through a
// symbolic link; at the top it runs at the worktree's top.
func TestOpenRepo_CandidateDirectoryIsTheUsersBelowTheTop(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("best of N needs git, which is not on PATH")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		if out, err := git(context.Background(), dir, nil, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	linked := os.Symlink(filepath.Join(dir, "a"), link) == nil // Windows may refuse links
	for _, tc := range []struct{ cwd, rel string }{
		{dir, "."},
		{filepath.Join(dir, "a", "b"), filepath.Join("a", "b")},
		{filepath.Join(link, "b"), filepath.Join("a", "b")},
	} {
		if tc.cwd == filepath.Join(link, "b") && !linked {
			continue
		}
		r, err := openRepo(context.Background(), tc.cwd)
		if err != nil {
			t.Fatalf("%s: %v", tc.cwd, err)
		}
		if filepath.Clean(r.rel) != tc.rel {
			t.Errorf("%s: rel %q, want %q", tc.cwd, r.rel, tc.rel)
		}
	}
}

// A check is the user's command line, run in the candidate's directory by
// the system shell as written (cmd.exe on Windows reads its own quoting):
// exit 0 passes, and the output's tail is kept either way.
func TestCheck_RunsTheCommandLineInTheWorktree(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "result.txt"), []byte("pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, command, want, tail string
	}{
		{"passes", proctest.ShellCommand("has:result.txt:pass", "out:ok 3 tests\n"), "passed", "ok 3 tests"},
		{"fails with its output", proctest.ShellCommand("out:FAIL TestX\n", "exit:1"), "failed", "FAIL TestX"},
		{"reads the candidate's files", proctest.ShellCommand("has:result.txt:fail"), "failed", "want \"fail\""},
		{"quoted words", proctest.Quote(proctest.Command()[0]) + ` "-hubtest.run" "out:a b" --`, "passed", "a b"},
		// go test -v: more output than a pipe holds, the verdict last
		{"long output", proctest.ShellCommand("cat:long.txt", "out:ok all\n"), "passed", "ok all"},
	}
	if err := os.WriteFile(filepath.Join(dir, "long.txt"), bytes.Repeat([]byte("=== RUN TestX\n"), 200_000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, tail := check(context.Background(), dir, tc.command, time.Minute)
			if got != tc.want || !strings.Contains(tail, tc.tail) {
				t.Fatalf("check = %s, tail %q; want %s with %q", got, tail, tc.want, tc.tail)
			}
		})
	}
}
