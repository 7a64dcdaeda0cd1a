package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// The native loop judges its own tool calls by the rules of the session's
// cwd, not by those of the directory hub acp started in: a read the
// project denies is refused there (before, the launch rules allowed reads,
// so the project's deny rule never applied), and allowed in a session of
// another project.
func TestNativeSession_RulesOfItsOwnCwd(t *testing.T) {
	strict, plain := t.TempDir(), t.TempDir()
	for _, dir := range []string{strict, plain} {
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the plan\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deny := config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "read_file", Path: "notes.txt", Decision: "deny"}}}
	read := mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{ID: "r1", Name: "read_file", Args: `{"path":"notes.txt"}`}}}
	srv := mockllm.NewOpenAIServer(read, mockllm.OpenAITurn{Text: "done"}, read, mockllm.OpenAITurn{Text: "done"})
	defer srv.Close()
	c := nativeClient(t, srv.URL, func(cwd string) (Settings, error) {
		if cwd == strict {
			return Settings{Permissions: deny}, nil
		}
		return Settings{}, nil
	})
	toolResult := func(req int) string {
		msgs := srv.Requests()[req].Messages
		return mockllm.MessageText(msgs[len(msgs)-1])
	}
	c.prompt(c.newSession(strict), "read the notes")
	if got := toolResult(1); strings.Contains(got, "the plan") {
		t.Fatalf("the session in the strict project read the denied file: %q", got)
	}
	c.prompt(c.newSession(plain), "read the notes")
	if got := toolResult(3); !strings.Contains(got, "the plan") {
		t.Fatalf("the session in the plain project: %q, want the file read", got)
	}
}

// The native loop runs the hooks of the session's cwd: a project's
// UserPromptSubmit hook blocks prompts there (before, the loop ran the
// launch directory's hooks, and none here), not in another project.
func TestNativeSession_HooksOfItsOwnCwd(t *testing.T) {
	strict, plain := t.TempDir(), t.TempDir()
	block := map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("err:no prompts here\n", "exit:2")}}}
	hk, err := hooks.New(block)
	if err != nil {
		t.Fatal(err)
	}
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "answered"})
	defer srv.Close()
	c := nativeClient(t, srv.URL, func(cwd string) (Settings, error) {
		if cwd == strict { // as sessionSettings (cmd/hub) makes them: the runner and what it runs
			return Settings{Hooks: hk, HookConfig: block}, nil
		}
		return Settings{HookConfig: map[string][]config.HookConfig{}}, nil
	})
	inStrict := c.newSession(strict)
	_, e := c.call("session/prompt", schema.PromptRequest{SessionID: inStrict, Prompt: []schema.ContentBlock{schema.TextBlock("hello")}})
	if e == nil || !strings.Contains(e.Message, "no prompts here") || len(srv.Requests()) != 0 {
		t.Fatalf("the strict project's hook did not block: %+v, %d model requests", e, len(srv.Requests()))
	}
	inPlain := c.newSession(plain)
	c.prompt(inPlain, "hello")
	if got := c.agentText(inPlain); !strings.Contains(got, "answered") {
		t.Fatalf("the plain project's prompt: %q", got)
	}
}

// nativeClient is an initialized hub acp client whose only agent is the
// native loop on the mock LLM at url, each session's settings by cwd.
func nativeClient(t *testing.T, url string, settings func(cwd string) (Settings, error)) *tclient {
	t.Helper()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: url, Model: "mock-model", Local: true, Stream: true, ContextWindow: 1 << 20},
		openai.Options{IdleTimeout: 30 * time.Second}))
	c := startClient(t, Options{Registry: reg, DefaultAgent: "native", Logger: zerolog.Nop(), StateDir: t.TempDir(),
		CancelGrace: time.Minute, Settings: settings})
	c.init(schema.ClientCapabilities{})
	return c
}
