package openai

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

// A session with a gate (SessionOptions.Permission) has each tool call
// judged once, by the gate, whatever rules the front end also passes
// (SessionOptions.Rules, the gate's own) or the adapter holds: the loop
// reports no decision of its own, hands every call it offers to the gate
// once (a read marked as one it runs unasked), and runs what the gate
// allows. Before, the loop judged with its own copy of the rules and the
// gate never saw the calls those decided.
func TestSession_GateJudgesEachCallOnce(t *testing.T) {
	rules := func(rs ...config.PermissionRule) *config.PermissionsConfig {
		return &config.PermissionsConfig{Rules: rs}
	}
	call := func(name, args string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: name, Args: args}}}
	}
	write := call("write_file", `{"path":"a.txt","content":"x"}`)
	cases := []struct {
		name    string
		rules   *config.PermissionsConfig // what the front end passes beside its gate
		turns   []mockllm.OpenAITurn
		gate    []adapters.PermissionDecision // the gate's answers, in order
		unasked []bool                        // the gate saw each call as one the loop runs unasked
		written bool
		model   string // what the model reads back from the first call
	}{
		{"denied by the hard deny list", rules(config.PermissionRule{Tool: "*", Decision: "allow"}), []mockllm.OpenAITurn{call("bash", `{"command":"rm -rf /"}`)},
			[]adapters.PermissionDecision{{Kind: adapters.RejectOnce, By: "hard deny", Reason: "hard deny: deletes /"}}, []bool{false}, false,
			"Permission denied (hard deny: deletes /)"},
		{"denied by a rule", rules(config.PermissionRule{Tool: "write_file", Decision: "deny"}), []mockllm.OpenAITurn{write},
			[]adapters.PermissionDecision{{Kind: adapters.RejectOnce, By: "rule", Reason: "denied by permissions.rules[0]"}}, []bool{false}, false,
			"Permission denied (denied by permissions.rules[0])"},
		{"allowed by a rule", rules(config.PermissionRule{Tool: "write_file", Decision: "allow"}), []mockllm.OpenAITurn{write},
			[]adapters.PermissionDecision{{Kind: adapters.AllowOnce, By: "rule", Reason: "allow by permissions.rules[0]"}}, []bool{false}, true, "wrote 1 bytes"},
		{"a rule the gate lacks decides nothing", rules(config.PermissionRule{Tool: "write_file", Decision: "deny"}), []mockllm.OpenAITurn{write},
			[]adapters.PermissionDecision{{Kind: adapters.AllowOnce, By: "user", Reason: "the user allowed it"}}, []bool{false}, true, "wrote 1 bytes"},
		{"an always answer, then remembered", nil, []mockllm.OpenAITurn{write, write},
			[]adapters.PermissionDecision{{Kind: adapters.AllowAlways, By: "user"}, {Kind: adapters.AllowOnce, By: "always"}}, []bool{false, false}, true, "wrote 1 bytes"},
		{"a read the loop runs unasked", rules(config.PermissionRule{Tool: "read_file", Decision: "deny"}), []mockllm.OpenAITurn{call("read_file", `{"path":"a.txt"}`)},
			[]adapters.PermissionDecision{{Kind: adapters.AllowOnce}}, []bool{true}, false, "old"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(append(c.turns, mockllm.OpenAITurn{Text: "done"})...)
			defer srv.Close()
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			var unasked []bool
			gate := func(_ context.Context, p *adapters.PermissionRequest) adapters.PermissionDecision {
				unasked = append(unasked, p.Unasked)
				if len(unasked) > len(c.gate) {
					t.Errorf("the gate was asked %d times for %d calls", len(unasked), len(c.gate))
					return adapters.PermissionDecision{Kind: adapters.RejectOnce, By: "test"}
				}
				return c.gate[len(unasked)-1]
			}
			s, err := New(Profile{Name: "test", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 200000},
				Options{IdleTimeout: 5 * time.Second, Rules: config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "*", Decision: "deny"}}}}).
				Start(context.Background(), adapters.SessionOptions{Cwd: root, Permission: gate, Rules: c.rules})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("go"))
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := drain(t, ch, nil)
			if len(unasked) != len(c.unasked) {
				t.Fatalf("the gate was asked %d times, want once per call (%d)", len(unasked), len(c.unasked))
			}
			for i := range unasked {
				if unasked[i] != c.unasked[i] {
					t.Errorf("call %d reached the gate unasked=%v, want %v", i, unasked[i], c.unasked[i])
				}
			}
			if n := count(evs, adapters.EventDecision); n != 0 {
				t.Errorf("the loop reported %d decisions of its own; the gate reports them", n)
			}
			data, _ := os.ReadFile(filepath.Join(root, "a.txt"))
			if (string(data) == "x") != c.written {
				t.Errorf("a.txt holds %q, written want %v", data, c.written)
			}
			m := srv.Requests()[1].Messages
			if got := mockllm.MessageText(m[len(m)-1]); !strings.Contains(got, c.model) {
				t.Errorf("the model read %q, want %q", got, c.model)
			}
		})
	}
}

// A session started without a gate (the adapter used directly) judges
// with its rules as a gate would, and asks nothing more than before: the
// hard deny list and a deny rule refuse unasked, an allow rule allows,
// a read no rule decides runs unasked, a write no rule decides is put to
// whoever reads the turn's events; it reports each decision it takes.
func TestSession_WithoutAGateJudgesByItsRules(t *testing.T) {
	call := func(name, args string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: name, Args: args}}}
	}
	cases := []struct {
		name      string
		turn      mockllm.OpenAITurn
		asks      int
		decisions string // what decided, as reported
		model     string
	}{
		{"hard deny", call("bash", `{"command":"rm -rf /"}`), 0, "hard deny", "Permission denied (hard deny"},
		{"deny rule", call("write_file", `{"path":"secret.txt","content":"x"}`), 0, "rule", "Permission denied (denied by permissions.rules[1])"},
		{"allow rule", call("write_file", `{"path":"ok.txt","content":"x"}`), 0, "rule", "wrote 1 bytes"},
		{"a read runs unasked", call("read_file", `{"path":"notes.txt"}`), 0, "", "the notes"},
		{"a write is asked", call("write_file", `{"path":"other.txt","content":"x"}`), 1, "", "Permission denied (the user rejected it)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, func(_ *Profile, o *Options) {
				o.Rules = config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "write_file", Path: "ok.txt", Decision: "allow"},
					{Tool: "write_file", Path: "secret.txt", Decision: "deny"}}}
			}, c.turn, mockllm.OpenAITurn{Text: "done"})
			if err := os.WriteFile(filepath.Join(r.root, "notes.txt"), []byte("the notes\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			asks := 0
			evs, _ := r.prompt(t, "go", func(*adapters.PermissionRequest) string { asks++; return "reject_once" })
			var by []string
			for _, e := range evs {
				if e.Type == adapters.EventDecision {
					by = append(by, e.Decision.By)
				}
			}
			if asks != c.asks || strings.Join(by, ",") != c.decisions {
				t.Errorf("asked %d times, decisions by %q; want %d and %q", asks, by, c.asks, c.decisions)
			}
			if got := lastMessage(r, 1); !strings.Contains(got, c.model) {
				t.Errorf("the model read %q, want %q", got, c.model)
			}
		})
	}
}
