package openai

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/permission"
)

// testGate is a session's permission gate wrapped as a front end wraps
// permission.Service (conversation.Gate, which an agent's tests may not
// import): the rules decide (Judge, with the loop's Unasked and Hook),
// what they leave open goes to the answer the test gives, and an
// "always" answer is remembered.
type testGate struct {
	t     testing.TB
	cwd   string
	mu    sync.Mutex
	rules *permission.Service
	ans   answer
	by    []string // who decided each call the rules decided, in order
}

// newGate is a gate over rules for a session in cwd; it answers nothing
// until answer gives it an answer.
func newGate(t testing.TB, cwd string, rules ...config.PermissionRule) *testGate {
	g := &testGate{t: t, cwd: cwd}
	g.setRules(rules...)
	return g
}

func (g *testGate) setRules(rules ...config.PermissionRule) {
	svc, err := permission.New(config.PermissionsConfig{Rules: rules})
	if err != nil {
		g.t.Fatal(err)
	}
	g.mu.Lock()
	g.rules = svc
	g.mu.Unlock()
}

// answer sets what answers the calls the rules leave open; nil fails the
// test at any such call.
func (g *testGate) answer(ans answer) *testGate {
	g.mu.Lock()
	g.ans = ans
	g.mu.Unlock()
	return g
}

// ask is the gate as the session's adapters.PermissionFunc.
func (g *testGate) ask(ctx context.Context, p *adapters.PermissionRequest) adapters.PermissionDecision {
	g.mu.Lock()
	rules, ans := g.rules, g.ans
	g.mu.Unlock()
	req := permission.RequestOf(p.Tool, g.cwd)
	if v, ok := rules.Judge(ctx, p, req); ok {
		d := adapters.PermissionDecision{Kind: adapters.RejectOnce, By: v.By, Reason: v.Reason}
		if v.Decision == permission.Allow {
			d.Kind = adapters.AllowOnce
		}
		if v.By != "" {
			g.mu.Lock()
			g.by = append(g.by, v.By)
			g.mu.Unlock()
		}
		return d
	}
	if ans == nil {
		g.t.Errorf("unexpected permission request %+v", p.Tool)
		return adapters.PermissionDecision{Kind: adapters.RejectOnce}
	}
	d := adapters.PermissionDecision{OptionID: ans(p)}
	if i := slices.IndexFunc(p.Options, func(o adapters.PermissionOption) bool { return o.ID == d.OptionID }); i >= 0 {
		d.Kind = p.Options[i].Kind
	}
	rules.Remember(req, d.Kind)
	return d
}

// decided is who decided each call the rules decided.
func (g *testGate) decided() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.by)
}

// A session with a gate (SessionOptions.Permission) has each tool call
// judged once, by the gate: the loop reports no decision of its own,
// hands every call it offers to the gate once (a read marked as one it
// runs unasked), and runs what the gate allows.
func TestSession_GateJudgesEachCallOnce(t *testing.T) {
	call := func(name, args string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: name, Args: args}}}
	}
	write := call("write_file", `{"path":"a.txt","content":"x"}`)
	cases := []struct {
		name    string
		turns   []mockllm.OpenAITurn
		gate    []adapters.PermissionDecision // the gate's answers, in order
		unasked []bool                        // the gate saw each call as one the loop runs unasked
		written bool
		model   string // what the model reads back from the first call
	}{
		{"denied by the hard deny list", []mockllm.OpenAITurn{call("bash", `{"command":"rm -rf /"}`)},
			[]adapters.PermissionDecision{{Kind: adapters.RejectOnce, By: "hard deny", Reason: "hard deny: deletes /"}}, []bool{false}, false,
			"Permission denied (hard deny: deletes /)"},
		{"denied by a rule", []mockllm.OpenAITurn{write},
			[]adapters.PermissionDecision{{Kind: adapters.RejectOnce, By: "rule", Reason: "denied by permissions.rules[0]"}}, []bool{false}, false,
			"Permission denied (denied by permissions.rules[0])"},
		{"allowed by a rule", []mockllm.OpenAITurn{write},
			[]adapters.PermissionDecision{{Kind: adapters.AllowOnce, By: "rule", Reason: "allow by permissions.rules[0]"}}, []bool{false}, true, "wrote 1 bytes"},
		{"allowed by the user", []mockllm.OpenAITurn{write},
			[]adapters.PermissionDecision{{Kind: adapters.AllowOnce, By: "user", Reason: "the user allowed it"}}, []bool{false}, true, "wrote 1 bytes"},
		{"an always answer, then remembered", []mockllm.OpenAITurn{write, write},
			[]adapters.PermissionDecision{{Kind: adapters.AllowAlways, By: "user"}, {Kind: adapters.AllowOnce, By: "always"}}, []bool{false, false}, true, "wrote 1 bytes"},
		{"a read the loop runs unasked", []mockllm.OpenAITurn{call("read_file", `{"path":"a.txt"}`)},
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
				Options{IdleTimeout: 5 * time.Second}).Start(context.Background(), adapters.SessionOptions{Cwd: root, Permission: gate})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("go"))
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := drain(t, ch)
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

// The user's rules judge the loop's calls through the gate: the hard deny
// list and a deny rule refuse unasked, an allow rule allows, a read no
// rule decides runs unasked, a write no rule decides is put to the user;
// the gate says who decided what it decided.
func TestSession_GateJudgesByTheRules(t *testing.T) {
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
			r := newRig(t, nil, c.turn, mockllm.OpenAITurn{Text: "done"})
			r.gate.setRules(config.PermissionRule{Tool: "write_file", Path: "ok.txt", Decision: "allow"},
				config.PermissionRule{Tool: "write_file", Path: "secret.txt", Decision: "deny"})
			if err := os.WriteFile(filepath.Join(r.root, "notes.txt"), []byte("the notes\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			asks := 0
			r.prompt(t, "go", func(*adapters.PermissionRequest) string { asks++; return "reject_once" })
			if by := r.gate.decided(); asks != c.asks || strings.Join(by, ",") != c.decisions {
				t.Errorf("asked %d times, decisions by %q; want %d and %q", asks, by, c.asks, c.decisions)
			}
			if got := lastMessage(r, 1); !strings.Contains(got, c.model) {
				t.Errorf("the model read %q, want %q", got, c.model)
			}
		})
	}
}

// The bash tool's line is read as the shell that runs it reads it: under
// PowerShell a deny rule naming Remove-Item refuses its alias ri, and a
// secret PowerShell names is asked although a rule allows everything;
// under sh, ri is no cmdlet.
func TestSession_BashLineReadInItsShell(t *testing.T) {
	bash := func(line string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":` + strconv.Quote(line) + `}`}}}
	}
	for _, c := range []struct {
		name      string
		shell     adapters.Shell
		rule      config.PermissionRule
		line      string
		asks      int
		decisions string
	}{
		{"powershell, deny Remove-Item, ri", adapters.ShellPowerShell, config.PermissionRule{Tool: "bash", Command: "Remove-Item", Decision: "deny"}, `ri -r build`, 0, "rule"},
		{"sh, deny Remove-Item, ri", adapters.ShellSh, config.PermissionRule{Tool: "bash", Command: "Remove-Item", Decision: "deny"}, `ri -r build`, 1, ""},
		{"powershell, a secret", adapters.ShellPowerShell, config.PermissionRule{Tool: "*", Decision: "allow"}, `Get-Content $HOME\.ssh\id_rsa`, 1, ""},
		{"powershell, allow npm test, @( ) runs code", adapters.ShellPowerShell, config.PermissionRule{Tool: "bash", Command: "npm test", Decision: "allow"},
			`npm test @(Remove-Item -Recurse src)`, 1, ""},
		{"powershell, home delete", adapters.ShellPowerShell, config.PermissionRule{Tool: "*", Decision: "allow"}, `Remove-Item -Recurse -Force ~`, 0, "hard deny"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, func(_ *Profile, o *Options) { o.Shell = c.shell }, bash(c.line), mockllm.OpenAITurn{Text: "done"})
			r.gate.setRules(c.rule)
			asks := 0
			r.prompt(t, "go", func(*adapters.PermissionRequest) string { asks++; return "reject_once" })
			if by := r.gate.decided(); asks != c.asks || strings.Join(by, ",") != c.decisions {
				t.Errorf("%s %q: asked %d times, decisions by %q; want %d and %q", c.shell, c.line, asks, by, c.asks, c.decisions)
			}
		})
	}
}

// A session started without a gate fails closed: it asks. Every call,
// a read and one the hard deny list names too, reaches whoever reads the
// turn as an EventPermission; nothing runs unanswered, a refusal or a
// reader that gives up runs nothing, and only an allow runs the call.
func TestSession_WithoutAGateAsksEveryCall(t *testing.T) {
	call := func(name, args string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: name, Args: args}}}
	}
	cases := []struct {
		name   string
		turn   mockllm.OpenAITurn
		answer string // "": the reader refuses the request as one no one will answer
		model  string // what the model reads back
		wrote  bool
	}{
		{"a read", call("read_file", `{"path":"notes.txt"}`), "reject_once", "Permission denied (the user rejected it)", false},
		{"a hard-denied command", call("bash", `{"command":"rm -rf /"}`), "reject_once", "Permission denied (the user rejected it)", false},
		{"a write, refused", call("write_file", `{"path":"new.txt","content":"x"}`), "reject_once", "Permission denied (the user rejected it)", false},
		{"a write, unanswered", call("write_file", `{"path":"new.txt","content":"x"}`), "", "cancelled by the user", false},
		{"a write, allowed", call("write_file", `{"path":"new.txt","content":"x"}`), "allow_once", "wrote 1 bytes", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(c.turn, mockllm.OpenAITurn{Text: "done"})
			defer srv.Close()
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("the notes\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := New(Profile{Name: "test", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 200000},
				Options{IdleTimeout: 5 * time.Second}).Start(context.Background(), adapters.SessionOptions{Cwd: root})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("go"))
			if err != nil {
				t.Fatal(err)
			}
			asks := 0
			for ev := range ch {
				if ev.Type != adapters.EventPermission {
					continue
				}
				asks++
				if c.answer == "" {
					ev.Refuse()
				} else {
					ev.Permission.Respond(adapters.PermissionDecision{OptionID: c.answer})
				}
			}
			if asks != 1 {
				t.Errorf("the reader was asked %d times, want once", asks)
			}
			if _, err := os.Stat(filepath.Join(root, "new.txt")); (err == nil) != c.wrote {
				t.Errorf("new.txt written %v, want %v", err == nil, c.wrote)
			}
			m := srv.Requests()[1].Messages
			if got := mockllm.MessageText(m[len(m)-1]); !strings.Contains(got, c.model) {
				t.Errorf("the model read %q, want %q", got, c.model)
			}
		})
	}
}
