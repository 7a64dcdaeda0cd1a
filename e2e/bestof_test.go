//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

// Best of N with real claude and codex as the two candidates, each in its
// own worktree of a temp repository: both write out.txt, the check passes
// for both, the winner is applied to the tree, and nothing is left behind.
func TestBestOf_ClaudeAndCodexInWorktrees(t *testing.T) {
	claudeMock := mockllm.NewAnthropicServer(
		mockllm.AnthropicTurn{Text: "Writing.", ToolUses: []mockllm.AnthropicToolUse{
			{ID: "toolu_w", Name: "Bash", Input: `{"command":"echo from-claude > out.txt","description":"write out.txt"}`}}},
		mockllm.AnthropicTurn{Text: "Done."},
	)
	defer claudeMock.Close()
	codexMock := mockllm.NewResponsesServer(
		mockllm.ResponsesTurn{Text: "Writing.", ToolCalls: []mockllm.ResponsesToolCall{codexExec("call_w", "echo from-codex > out.txt")}},
		mockllm.ResponsesTurn{Text: "Done."},
	)
	defer codexMock.Close()
	var cfg []string
	for _, c := range []string{claudeHubConfig(t, claudeMock), codexHubConfig(t, codexMock)} {
		for _, l := range strings.Split(c, "\n") {
			if !strings.HasPrefix(l, "default_agent") {
				cfg = append(cfg, l)
			}
		}
	}
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".config", "hub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config", "hub", "config.toml"), []byte(strings.Join(cfg, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cmd := exec.Command(e2eHubBin(t), "run", "--agents", "claude,codex", "--check", "test -s out.txt", "--apply",
		"--approve", "all", "--format", "jsonl", "write out.txt")
	cmd.Dir, cmd.Env = repo, e2eEnv(home, "bestof", nil)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hub run --agents: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var sum struct {
		Winner     string
		Applied    bool
		Candidates []struct{ Name, Status, Check string }
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || len(sum.Candidates) != 2 || !sum.Applied {
		t.Fatalf("summary %s (%v)", lines[len(lines)-1], err)
	}
	for _, c := range sum.Candidates {
		if c.Status != "completed" || c.Check != "passed" {
			t.Errorf("candidate %+v", c)
		}
	}
	agent := strings.TrimSuffix(sum.Winner, "-1")
	if got, _ := os.ReadFile(filepath.Join(repo, "out.txt")); string(got) != "from-"+agent+"\n" {
		t.Fatalf("applied out.txt = %q, winner %s", got, sum.Winner)
	}
	wt, _ := exec.Command("git", "-C", repo, "worktree", "list").Output()
	br, _ := exec.Command("git", "-C", repo, "branch", "--list", "hub/*").Output()
	if strings.Count(strings.TrimSpace(string(wt)), "\n") != 0 || strings.TrimSpace(string(br)) != "" {
		t.Fatalf("left behind:\n%s\n%s", wt, br)
	}
}
