package runner

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/mockllm"
)

// A turn the model cut short is not a success: finish_reason length is
// max_tokens (exit 8), content_filter is refusal (exit 9); either says so
// on one stderr line and keeps the text that arrived on stdout.
func TestRun_CutShortTurnsExitWithTheirStopReason(t *testing.T) {
	tests := []struct {
		finish string
		stop   adapters.StopReason
		exit   int
	}{
		{"length", adapters.StopMaxTokens, conversation.ExitMaxTokens},
		{"content_filter", adapters.StopRefusal, conversation.ExitRefusal},
		{"stop", adapters.StopEndTurn, conversation.ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.finish, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "partial answ", FinishReason: tt.finish})
			defer srv.Close()
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true}, openai.Options{}))
			var out, errb bytes.Buffer
			s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: t.TempDir(), Prompt: "hi", Format: FormatText,
				Stdout: &out, Stderr: &errb, Timeout: 20 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
			if s.ExitCode != tt.exit || s.StopReason != tt.stop || out.String() != "partial answ\n" {
				t.Fatalf("exit %d stop %q stdout %q stderr %q", s.ExitCode, s.StopReason, out.String(), errb.String())
			}
			if tt.exit != conversation.ExitOK && (s.Error == "" || strings.Contains(s.Error, "\n")) {
				t.Fatalf("error %q: want one line", s.Error)
			}
		})
	}
}

// An agent that reports no cost (the native loop) is priced by the table
// when its model is in it: 1M input and 1M output tokens of gpt-4o.
func TestRun_CostFromThePriceTable(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ok", Usage: &mockllm.OpenAIUsage{PromptTokens: 1e6, CompletionTokens: 1e6, TotalTokens: 2e6}})
	defer srv.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "gpt-4o", APIKey: "k", Stream: true}, openai.Options{}))
	s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: t.TempDir(), Prompt: "hi", Format: FormatText,
		Timeout: 20 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
	if s.ExitCode != conversation.ExitOK || s.Cost == nil || *s.Cost != 12.5 {
		t.Fatalf("exit %d cost %v: want $12.50", s.ExitCode, s.Cost)
	}
}

// The run's transcript, which briefs an agent that takes the session
// over, lists the files the turn changed in the workspace, a file a shell
// command appended to included.
func TestRun_TranscriptListsShellWrittenFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "init")
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"echo more >> README"}`}}},
		mockllm.OpenAITurn{Text: "Appended."})
	defer srv.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true}, openai.Options{}))
	tdir := t.TempDir()
	s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: dir, Prompt: "append", Format: FormatText, Approve: conversation.ApproveAll,
		TranscriptDir: tdir, Timeout: 20 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
	if s.ExitCode != conversation.ExitOK {
		t.Fatalf("exit %d: %s", s.ExitCode, s.Error)
	}
	tr := loadTranscript(tdir, s.AgentSessionID)
	if tr == nil || !slices.Contains(tr.Brief.Files, "README") {
		t.Fatalf("transcript %+v: want README among its files", tr)
	}
}
