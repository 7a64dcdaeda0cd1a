package delegation

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/mockllm"
)

// A delegate's result comes from the turn's digest: usage summed over its
// two model requests (not the last one's), and the files changed read from
// the workspace, so a file a shell command appended to counts.
func TestDelegate_ResultSumsUsageAndListsShellWrittenFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "init"}} {
		cmd := exec.Command("git", append([]string{"-C", cwd}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
			"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	u := &mockllm.OpenAIUsage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}
	mock := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"echo more >> README"}`}}, Usage: u},
		mockllm.OpenAITurn{Text: "Appended.", Usage: u})
	defer mock.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: mock.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second}))
	d := New(Options{Registry: reg, Cwd: cwd, Approve: conversation.ApproveAll, Log: zerolog.Nop()})
	defer d.Close()
	r, err := d.Delegate(context.Background(), Request{Agent: "native", Prompt: "append to README"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage == nil || r.Usage.InputTokens != 20 || r.Usage.OutputTokens != 10 {
		t.Errorf("usage %+v, want 20 in / 10 out", r.Usage)
	}
	if !slices.Contains(r.FilesChanged, "README") || r.Answer != "Appended." {
		t.Errorf("result %+v: want README changed", r)
	}
}
