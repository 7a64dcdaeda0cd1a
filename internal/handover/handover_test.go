package handover

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestGitDiffStat_OnlyInARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if got := gitDiffStat(dir); got != "" {
		t.Fatalf("outside a repository: %q", got)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "parser.go"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package p\n")
	git("add", ".")
	git("commit", "-qm", "x")
	write("package p\n\nfunc f() {}\n")
	if got := gitDiffStat(dir); !strings.Contains(got, "parser.go") || !strings.Contains(got, "1 file changed") {
		t.Fatalf("diff stat = %q", got)
	}
}

func TestRenderTurns_NewestWholeOlderCutWithinBudget(t *testing.T) {
	var turns []Turn
	for i := 0; i < 200; i++ {
		turns = append(turns, Turn{Request: strings.Repeat("r", 1000), Answer: strings.Repeat("a", 1000)})
	}
	turns = append(turns, Turn{Request: "newest " + strings.Repeat("n", 3000), Answer: "final"})
	got := renderTurns(turns)
	if len(got) > Max || !strings.Contains(got, "newest "+strings.Repeat("n", 3000)) || !strings.Contains(got, "earlier turns left out") {
		t.Fatalf("len %d, newest whole %v, omission noted %v", len(got), strings.Contains(got, strings.Repeat("n", 3000)), strings.Contains(got, "left out"))
	}
}
