package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// hub run's gate judges each of the native loop's calls once: one
// permission line per call, naming what decided and carrying the call as
// the model made it (before, the loop judged what its own copy of the
// rules decided and the line named only the tool), the Answerer asked at
// most once, and the outcome the rules say. A PreToolUse hook runs inside
// that one decision, after the denies: its allow lifts no deny rule (the
// hook does not even run) and runs a call --approve none would refuse.
func TestRun_NativeCallDecidedOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	ran := filepath.Join(t.TempDir(), "hook-ran")
	allowHook, err := hooks.New(map[string][]config.HookConfig{"PreToolUse": {{Command: proctest.ShellCommand("touch:"+ran, `out:{"decision":"allow"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	rule := func(tool, decision string) config.PermissionsConfig {
		return config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: tool, Decision: decision}}}
	}
	call := func(name, args string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: name, Args: args}}}
	}
	write := call("write_file", `{"path":"a.txt","content":"x"}`)
	tests := []struct {
		name    string
		turns   []mockllm.OpenAITurn
		rules   config.PermissionsConfig
		hooks   *hooks.Runner
		answer  adapters.PermissionOptionKind // "": --approve none answers
		by      []string                      // what decided each call, in order
		asked   int                           // Answerer calls
		written bool
		hookRan bool
	}{
		{name: "hard deny", turns: []mockllm.OpenAITurn{call("bash", `{"command":"rm -rf ~"}`)}, rules: rule("*", "allow"),
			answer: adapters.AllowOnce, by: []string{"hard deny"}},
		{name: "deny rule", turns: []mockllm.OpenAITurn{write}, rules: rule("write_file", "deny"), answer: adapters.AllowOnce, by: []string{"rule"}},
		{name: "allow rule", turns: []mockllm.OpenAITurn{write}, rules: rule("write_file", "allow"), by: []string{"rule"}, written: true},
		{name: "always", turns: []mockllm.OpenAITurn{write, write}, answer: adapters.AllowAlways, by: []string{"user", "always"}, asked: 1, written: true},
		{name: "a hook's allow lifts no deny rule", turns: []mockllm.OpenAITurn{write}, rules: rule("write_file", "deny"), hooks: allowHook,
			by: []string{"rule"}},
		{name: "a hook's allow is an allow", turns: []mockllm.OpenAITurn{write}, hooks: allowHook, by: []string{"hook"}, written: true, hookRan: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(ran)
			srv := mockllm.NewOpenAIServer(append(tt.turns, mockllm.OpenAITurn{Text: "done"})...)
			defer srv.Close()
			retries := 0
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true},
				openai.Options{MaxRetries: &retries, Hooks: tt.hooks}))
			asked := 0
			var ask conversation.Answerer
			if tt.answer != "" {
				ask = conversation.AnswerFunc(func(_ context.Context, q conversation.Question) conversation.Reply {
					asked++
					d := adapters.PermissionDecision{Kind: tt.answer}
					if o, ok := q.Request.OptionFor(tt.answer); ok {
						d.OptionID = o.ID
					}
					return conversation.Reply{Decision: d, By: conversation.ByUser, Reason: "the user answered"}
				})
			}
			cwd := t.TempDir()
			var out, errb bytes.Buffer
			Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: cwd, Prompt: "go", Format: FormatJSONL,
				Approve: conversation.ApproveNone, Ask: ask, Rules: tt.rules, Stdout: &out, Stderr: &errb, Timeout: 20 * time.Second, Grace: 2 * time.Second,
				StopAll: func() {}, SkillsUserDir: t.TempDir()})
			var by []string
			for _, l := range strings.Split(out.String(), "\n") {
				if !strings.Contains(l, `"type":"permission"`) {
					continue
				}
				if !strings.Contains(l, `"rawInput"`) {
					t.Errorf("the permission line does not carry the call:\n%s", l)
				}
				if i := strings.Index(l, `"by":"`); i >= 0 {
					by = append(by, strings.SplitN(l[i+6:], `"`, 2)[0])
				}
			}
			if strings.Join(by, ",") != strings.Join(tt.by, ",") || asked != tt.asked {
				t.Errorf("decided by %q with the Answerer asked %d times, want %q and %d\n%s", by, asked, tt.by, tt.asked, out.String())
			}
			if _, err := os.Stat(filepath.Join(cwd, "a.txt")); (err == nil) != tt.written {
				t.Errorf("a.txt written %v, want %v", err == nil, tt.written)
			}
			if _, err := os.Stat(ran); (err == nil) != tt.hookRan {
				t.Errorf("the hook ran %v, want %v", err == nil, tt.hookRan)
			}
		})
	}
}
