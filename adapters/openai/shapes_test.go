package openai

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mockllm"
)

// The native loop's reading tools ask before reading a secret, every
// time: the default for reads, an allow rule, an "always" answer and a
// PreToolUse hook's allow do not turn it into an allow.
func TestSession_SecretReadsAlwaysAsked(t *testing.T) {
	allowAll := []config.PermissionRule{{Tool: "*", Decision: "allow"}}
	hookAllows := withHooks(t, map[string][]config.HookConfig{"PreToolUse": {{Command: `echo '{"decision":"allow"}'`}}})
	read := func(tool, args string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: tool, Args: args}}}
	}
	cases := []struct {
		name   string
		mutate func(*Profile, *Options)
		rules  []config.PermissionRule
		turns  []mockllm.OpenAITurn
		asks   int
	}{
		{"default read of .env", nil, nil, []mockllm.OpenAITurn{read("read_file", `{"path":".env"}`)}, 1},
		{"allow rule, always answered, read twice", nil, allowAll,
			[]mockllm.OpenAITurn{read("read_file", `{"path":".env"}`), read("read_file", `{"path":".env"}`)}, 2},
		{"grep of a key", nil, allowAll, []mockllm.OpenAITurn{read("grep", `{"pattern":"KEY","path":"keys/id_rsa"}`)}, 1},
		{"cat .env", nil, allowAll, []mockllm.OpenAITurn{read("bash", `{"command":"cat .env"}`)}, 1},
		{"hook allows", hookAllows, allowAll, []mockllm.OpenAITurn{read("read_file", `{"path":".env.local"}`)}, 1},
		{"a template is no secret", nil, nil, []mockllm.OpenAITurn{read("read_file", `{"path":".env.example"}`)}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, c.mutate, append(c.turns, mockllm.OpenAITurn{Text: "done"})...)
			r.gate.setRules(c.rules...)
			for _, f := range []string{".env", ".env.local", ".env.example", "keys/id_rsa"} {
				p := filepath.Join(r.root, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("KEY=x\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			asks := 0
			r.prompt(t, "read it", func(*adapters.PermissionRequest) string { asks++; return "allow_always" })
			if asks != c.asks {
				t.Fatalf("asked %d times, want %d", asks, c.asks)
			}
		})
	}
}
