//go:build e2e && unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubdev/hub/internal/mockllm"
)

// The delegation figure (make bench; HUB_BENCH_AGENTS=1): one codex turn
// against the mock, run directly (`hub run --agent codex`, a process per
// turn) and delegated (the `delegate` tool of a running `hub mcp`). It
// prints the medians; it asserts nothing about them.
func TestBench_Delegation(t *testing.T) {
	if os.Getenv("HUB_BENCH_AGENTS") != "1" {
		t.Skip("set HUB_BENCH_AGENTS=1 (make bench)")
	}
	const runs = 7
	mock := mockllm.NewResponsesServer()
	defer mock.Close()
	cfg := codexHubConfig(t, mock)
	home, cwd := t.TempDir(), t.TempDir()

	var direct []time.Duration
	for range runs {
		mock.Add(mockllm.ResponsesTurn{Text: "hi"})
		start := time.Now()
		if r := runHub(t, home, cfg, "", "--agent", "codex", "--cwd", cwd, "--format", "text", "say hi"); r.code != 0 {
			t.Fatalf("hub run: exit %d\n%s", r.code, e2eTail(r.stderr, 20))
		}
		direct = append(direct, time.Since(start))
	}

	cmd := exec.Command(e2eHubBin(t), "mcp", "--cwd", cwd)
	cmd.Env = e2eEnv(home, "bench-delegation", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("hub mcp: %v", err)
	}
	defer cs.Close()
	ready := time.Since(start)
	var delegated []time.Duration
	for range runs {
		mock.Add(mockllm.ResponsesTurn{Text: "hi"})
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delegate", Arguments: map[string]any{"agent": "codex", "prompt": "say hi"}})
		if err != nil || res.IsError {
			t.Fatalf("delegate: %v %+v", err, res)
		}
		delegated = append(delegated, time.Since(start))
	}
	md, mg := medianOf(direct), medianOf(delegated)
	fmt.Printf("| codex turn on the mock (median of %d) | wall |\n|---|---|\n", runs)
	fmt.Printf("| hub run --agent codex (process per turn) | %v |\n", md.Round(time.Millisecond))
	fmt.Printf("| hub mcp delegate (server already up) | %v |\n", mg.Round(time.Millisecond))
	fmt.Printf("| delegation overhead (delegate - direct) | %v |\n", (mg - md).Round(time.Millisecond))
	fmt.Printf("| hub mcp spawn -> initialized (once per agent session) | %v |\n", ready.Round(time.Millisecond))
}

func medianOf(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
