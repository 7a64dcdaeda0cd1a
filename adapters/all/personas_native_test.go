package all_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/personas"
)

// nativeRun starts persona src on the native loop against the mock LLM,
// runs one prompt and returns the server, the events and the tools the
// permission gate was asked about.
func nativeRun(t *testing.T, src string, turns ...mockllm.OpenAITurn) (*mockllm.OpenAIServer, []adapters.Event, []string) {
	t.Helper()
	return nativeRunWith(t, src, nil, turns...)
}

// nativeRunWith is nativeRun with the front end's options changed by with.
func nativeRunWith(t *testing.T, src string, with func(*adapters.SessionOptions), turns ...mockllm.OpenAITurn) (*mockllm.OpenAIServer, []adapters.Event, []string) {
	t.Helper()
	srv := mockllm.NewOpenAIServer(turns...)
	t.Cleanup(srv.Close)
	p, err := personas.Parse("p.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p.Trusted = true
	backend := openai.New(openai.Profile{Name: "native", BaseURL: srv.URL, Model: "mock-model", Local: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 5 * time.Second})
	a := &personas.Adapter{P: p, Backend: backend}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var asked []string
	opts := adapters.SessionOptions{Cwd: root,
		Permission: func(_ context.Context, req *adapters.PermissionRequest) adapters.PermissionDecision {
			asked = append(asked, req.Tool.Name)
			return adapters.PermissionDecision{OptionID: "allow_once", Kind: adapters.AllowOnce}
		}}
	if with != nil {
		with(&opts)
	}
	s, err := a.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	var evs []adapters.Event
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("go"), func(e adapters.Event) { evs = append(evs, e) }); err != nil {
		t.Fatal(err)
	}
	return srv, evs, asked
}

func offered(req mockllm.OpenAIRequest) []string {
	var out []string
	for _, tl := range req.Tools {
		if f, ok := tl["function"].(map[string]any); ok {
			out = append(out, f["name"].(string))
		}
	}
	return out
}

// The persona's prompt is the system message, its model the request's,
// and only its tools are offered; a tool it does not list is refused
// without asking, even when the model calls it.
func TestAdapter_NativePromptModelAndTools(t *testing.T) {
	srv, evs, asked := nativeRun(t, "---\nname: reader\ndescription: reads\nmodel: persona-model\ntools: Read, Grep\nreplace: true\n---\nYou only read.\n",
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"touch x"}`}}},
		mockllm.OpenAITurn{Text: "done"})
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if sys := mockllm.MessageText(reqs[0].Messages[0]); sys != "You only read." {
		t.Errorf("system message = %q, want the persona's prompt", sys)
	}
	if reqs[0].Model != "persona-model" {
		t.Errorf("model = %q", reqs[0].Model)
	}
	if got := strings.Join(offered(reqs[0]), ","); got != "read_file,grep,glob" {
		t.Errorf("offered %s, want read_file,grep,glob", got)
	}
	if len(asked) != 0 {
		t.Errorf("asked about %q: an unlisted tool is refused, not asked", asked)
	}
	if res := mockllm.MessageText(reqs[1].Messages[len(reqs[1].Messages)-1]); !strings.Contains(res, "denied") {
		t.Errorf("the model read %q, want a denial", res)
	}
	for _, e := range evs {
		if e.Type == adapters.EventToolUpdate && e.Tool.Status == adapters.StatusCompleted {
			t.Errorf("a tool ran: %+v", e.Tool)
		}
	}
}

// The native delegate_agent tool is one of the persona's tools: offered
// when it lists every tool, hub's delegate_agent or Claude's Task, and
// neither offered nor run when its tools leave delegation out.
func TestAdapter_NativeDelegationFollowsTheTools(t *testing.T) {
	tests := []struct {
		name, tools string
		offered     bool
	}{
		{"every tool", "", true},
		{"hub's name", "tools: Read, delegate_agent\n", true},
		{"Claude's Task", "tools: Read, Task\n", true},
		{"delegates named", "tools: Read\ndelegates: codex\n", true},
		{"not listed", "tools: Read, Grep\n", false},
		{"disallowed", "disallowedTools: Task\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			delegated := 0
			srv, _, _ := nativeRunWith(t, "---\nname: lead\ndescription: d\n"+tc.tools+"---\nx\n", func(o *adapters.SessionOptions) {
				o.DelegateAgents = []string{"codex"}
				o.Delegate = func(context.Context, adapters.DelegateRequest) (string, error) {
					delegated++
					return "delegated", nil
				}
			}, mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "delegate_agent", Args: `{"agent":"codex","prompt":"p"}`}}},
				mockllm.OpenAITurn{Text: "done"})
			if got := slices.Contains(offered(srv.Requests()[0]), "delegate_agent"); got != tc.offered {
				t.Errorf("delegate_agent offered %v, want %v (offered %v)", got, tc.offered, offered(srv.Requests()[0]))
			}
			if ran := delegated > 0; ran != tc.offered {
				t.Errorf("the delegate ran %d times, want it to run %v", delegated, tc.offered)
			}
		})
	}
}

// A persona whose mode the backend lacks does not start (in another mode,
// it might be granted more than it says), as doctor says; a read-only
// persona on the native loop takes its mode.
func TestAdapter_ModeTheBackendLacksNeverStarts(t *testing.T) {
	p, err := personas.Parse("p.md", []byte("---\nname: bold\ndescription: d\nmode: acceptEdits\n---\nx\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Trusted = true
	a := &personas.Adapter{P: p, Backend: openai.New(openai.Profile{Name: "native", Model: "m", Local: true}, openai.Options{})}
	if _, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()}); !errors.Is(err, adapters.ErrUnsupported) || !strings.Contains(err.Error(), "acceptEdits") {
		t.Errorf("Start = %v, want a refusal naming the mode", err)
	}
	srv, evs, _ := nativeRun(t, "---\nname: ro\ndescription: d\nmode: read-only\n---\nx\n", mockllm.OpenAITurn{Text: "ok"})
	if evs[0].Type == adapters.EventError {
		t.Errorf("read-only on the native loop warned: %+v", evs[0].Error)
	}
	if got := strings.Join(offered(srv.Requests()[0]), ","); got != "read_file,grep,glob" {
		t.Errorf("read-only offered %s", got)
	}
}

// A persona from a project file the user has not trusted never starts.
func TestAdapter_UntrustedNeverRuns(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ran"})
	t.Cleanup(srv.Close)
	p, err := personas.Parse("p.md", []byte("---\nname: evil\ndescription: d\n---\nx\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Untrusted = "the project file p.md is not trusted"
	a := &personas.Adapter{P: p, Backend: openai.New(openai.Profile{Name: "native", BaseURL: srv.URL, Model: "m", Local: true}, openai.Options{})}
	if _, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()}); !errors.Is(err, personas.ErrUntrusted) {
		t.Errorf("Start = %v, want ErrUntrusted", err)
	}
	if err := a.Ready(); !errors.Is(err, personas.ErrUntrusted) {
		t.Errorf("Ready = %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// The persona's rules narrow the user's: its deny is added, its allow is
// not (a file never widens the config), and unlisted kinds are denied.
func TestPersona_RulesNarrowNeverWiden(t *testing.T) {
	p, err := personas.Parse("p.md", []byte("---\nname: n\ndescription: d\ntools: Read, Bash\npermissions:\n  allow: [\"Bash(rm:*)\"]\n  deny: [\"Bash(git push:*)\"]\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	user := config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "bash", Command: "go test", Decision: "allow"}}}
	got := p.Rules(user).Rules
	has := func(r config.PermissionRule) bool {
		for _, g := range got {
			if g == r {
				return true
			}
		}
		return false
	}
	for _, want := range []config.PermissionRule{user.Rules[0], {Tool: "Bash", Command: "git push", Decision: "deny"},
		{Tool: "edit", Decision: "deny"}, {Tool: "fetch", Decision: "deny"}} {
		if !has(want) {
			t.Errorf("rules %+v lack %+v", got, want)
		}
	}
	for _, r := range got {
		if r.Decision == "allow" && r != user.Rules[0] {
			t.Errorf("the persona widened the rules: %+v", r)
		}
		if r.Tool == "execute" || r.Tool == "read" {
			t.Errorf("a listed kind is denied: %+v", r)
		}
	}
}
