package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/mockllm"
)

// --append-system-prompt reaches the native loop's system message after
// hub's own; --system-prompt replaces hub's own, the appended text still
// following it.
func TestRun_SystemPromptsReachTheNativeRequest(t *testing.T) {
	tests := []struct {
		name, system, appended string
		want, not              []string
	}{
		{name: "append", appended: "Answer in French.", want: []string{"Answer in French.", "coding agent"}},
		{name: "replace", system: "You are a strict reviewer.", appended: "Answer in French.",
			want: []string{"You are a strict reviewer.", "Answer in French."}, not: []string{"coding agent"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ok"})
			defer srv.Close()
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true}, openai.Options{}))
			var out, errb bytes.Buffer
			s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: t.TempDir(), Prompt: "hi", Format: FormatText,
				Stdout: &out, Stderr: &errb, Timeout: 20 * time.Second, Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir(),
				SystemPrompt: tc.system, AppendSystemPrompt: tc.appended})
			if s.ExitCode != conversation.ExitOK {
				t.Fatalf("exit %d: %s\n%s", s.ExitCode, s.Error, errb.String())
			}
			msgs := srv.Requests()[0].Messages
			system := mockllm.MessageText(msgs[0])
			if msgs[0]["role"] != "system" {
				t.Fatalf("first message is %v", msgs[0]["role"])
			}
			for _, w := range tc.want {
				if !strings.Contains(system, w) {
					t.Errorf("system message lacks %q:\n%s", w, system)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(system, w) {
					t.Errorf("system message still holds %q:\n%s", w, system)
				}
			}
			if strings.Contains(mockllm.MessageText(msgs[len(msgs)-1]), "French") {
				t.Error("the appended prompt reached the user's message")
			}
		})
	}
}

// An agent whose system prompt cannot be replaced refuses --system-prompt
// with a usage error naming it, before it starts.
func TestRun_SystemPromptRefusedWhereItCannotBeReplaced(t *testing.T) {
	reg := adapters.NewRegistry()
	reg.Register(replay.New(filepath.Join("testdata", "replay", "tool.jsonl")))
	var out, errb bytes.Buffer
	s := Run(context.Background(), Options{Registry: reg, Agent: replay.Name, Cwd: t.TempDir(), Prompt: "hi", Format: FormatText,
		Stdout: &out, Stderr: &errb, Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir(), SystemPrompt: "be terse"})
	if s.ExitCode != conversation.ExitUsage || !strings.Contains(s.Error, replay.Name) || !strings.Contains(s.Error, "--system-prompt") {
		t.Fatalf("exit %d error %q", s.ExitCode, s.Error)
	}
}
