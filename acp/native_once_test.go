package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
	"github.com/hubdev/hub/personas"
)

// Input steered into the native loop's turn passes the prompt hooks once
// (the loop runs them itself, hub acp does not run them again), and a
// block answers the steering request as it does for a CLI agent.
func TestNativeSession_SteeredInputIsHookedOnce(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "glob", Args: `{"pattern":"*"}`}}},
		mockllm.OpenAITurn{Text: "done"})
	defer srv.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true},
		openai.Options{IdleTimeout: 30 * time.Second}))
	log := filepath.Join(t.TempDir(), "log")
	cfg := map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("stdin>>:" + log)},
		{Command: proctest.ShellCommand("exitifstdin:SECRET:2:no secrets")}}}
	h, err := hooks.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, Options{Registry: reg, DefaultAgent: "native", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Minute,
		Settings: everywhere(Settings{Hooks: h, HookConfig: cfg, Permissions: config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "glob", Decision: "ask"}}}})})
	var blocked *jsonrpc.Error
	var clean schema.SteeringResponse
	c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		_, blocked = c.call("_session/steering", steerReq(p.SessionID, "my SECRET", false))
		c.must("_session/steering", steerReq(p.SessionID, "also look deeper", false), &clean)
		return selectKind("allow_once")(p)
	}
	sid, _ := c.start(t)
	c.prompt(sid, "look")
	if data, _ := json.Marshal(blocked); blocked == nil || !strings.Contains(blocked.Message, "no secrets") || !strings.Contains(string(data), `"code":"hook"`) ||
		clean.Outcome != schema.SteerInjected {
		t.Fatalf("steering answered %s, then %+v", data, clean)
	}
	if body := string(srv.Requests()[1].Body); strings.Contains(body, "SECRET") || !strings.Contains(body, "also look deeper") {
		t.Fatalf("the second model request: %s", body)
	}
	b, _ := os.ReadFile(log)
	if got := strings.Count(string(b), `"prompt":"my SECRET"`) + strings.Count(string(b), `"prompt":"also look deeper"`); got != 2 {
		t.Fatalf("the prompt hooks ran %d times on the two steered inputs, want 2:\n%s", got, b)
	}
}

// The session's gate judges each of the native loop's calls once, as it
// judges a CLI agent's: the editor is asked only what the rules leave
// open, at most once per call ("always" covers the next), a refusal
// without asking is told once in the conversation, and a persona's rules
// take part: its ask rule is put to the editor even where the user's
// allow rule matches (before, that rule allowed it unasked), with no
// "always" offered, and its deny rule is told as the persona's.
func TestNativeSession_EachCallDecidedOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	rule := func(tool, decision string) config.PermissionRule {
		return config.PermissionRule{Tool: tool, Decision: decision}
	}
	call := func(name, args string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: name, Args: args}}}
	}
	write := call("write_file", `{"path":"a.txt","content":"x"}`)
	tests := []struct {
		name    string
		turns   []mockllm.OpenAITurn
		rules   []config.PermissionRule // the user's
		persona []config.PermissionRule // nil: the native loop itself
		asked   int
		refused string // what the one refusal told names; "": none
		written bool
	}{
		{name: "hard deny", turns: []mockllm.OpenAITurn{call("bash", `{"command":"rm -rf ~"}`)}, rules: []config.PermissionRule{rule("*", "allow")},
			refused: "hard deny"},
		{name: "deny rule", turns: []mockllm.OpenAITurn{write}, rules: []config.PermissionRule{rule("write_file", "deny")}, refused: "denied by permissions.rules[0]"},
		{name: "allow rule", turns: []mockllm.OpenAITurn{write}, rules: []config.PermissionRule{rule("write_file", "allow")}, written: true},
		{name: "always", turns: []mockllm.OpenAITurn{write, write}, asked: 1, written: true},
		{name: "a persona's ask rule", turns: []mockllm.OpenAITurn{write}, rules: []config.PermissionRule{rule("write_file", "allow")},
			persona: []config.PermissionRule{rule("Write", "ask")}, asked: 1, written: true},
		{name: "a persona's deny rule", turns: []mockllm.OpenAITurn{write}, persona: []config.PermissionRule{rule("Write", "deny")}, refused: "careful: Write a.txt\": persona careful: denied by"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(append(tt.turns, mockllm.OpenAITurn{Text: "done"})...)
			defer srv.Close()
			reg := adapters.NewRegistry()
			native := openai.New(openai.Profile{Name: "native", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 1 << 20},
				openai.Options{IdleTimeout: 30 * time.Second})
			reg.Register(native)
			agent := "native"
			if tt.persona != nil {
				agent = "careful"
				reg.Register(&personas.Adapter{P: personas.Persona{Name: agent, Description: "d", Permissions: tt.persona, Trusted: true}, Backend: native})
			}
			c := startClient(t, Options{Registry: reg, DefaultAgent: agent, Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Minute,
				Settings: func(string) (Settings, error) {
					return Settings{Permissions: config.PermissionsConfig{Rules: tt.rules}}, nil
				}})
			var mu sync.Mutex
			var offered [][]string
			c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
				var kinds []string
				for _, o := range p.Options {
					kinds = append(kinds, o.Kind)
				}
				mu.Lock()
				offered = append(offered, kinds)
				mu.Unlock()
				if slices.Contains(kinds, "allow_always") {
					return selectKind("allow_always")(p)
				}
				return selectKind("allow_once")(p)
			}
			c.init(schema.ClientCapabilities{})
			cwd := t.TempDir()
			sid := c.newSession(cwd)
			c.prompt(sid, "go")
			if len(offered) != tt.asked {
				t.Errorf("the editor was asked %d times, want %d", len(offered), tt.asked)
			}
			if tt.persona != nil && len(offered) > 0 && slices.Contains(offered[0], "allow_always") {
				t.Errorf("a persona's ask rule offered %q: it is asked every time", offered[0])
			}
			text := c.agentText(sid)
			if n := strings.Count(text, "hub refused"); n != min(1, len(tt.refused)) || !strings.Contains(text, tt.refused) {
				t.Errorf("the conversation told %d refusals, want one naming %q: %q", n, tt.refused, text)
			}
			if _, err := os.Stat(filepath.Join(cwd, "a.txt")); (err == nil) != tt.written {
				t.Errorf("a.txt written %v, want %v", err == nil, tt.written)
			}
		})
	}
}
