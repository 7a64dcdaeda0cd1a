package openai

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

// delegate_agent runs the session's Delegate; the model reads its answer,
// an error fails the call, and an "always" answer holds for the agent the
// user saw, not for every agent.
func TestDelegateAgent_RunsAndAsksPerAgent(t *testing.T) {
	call := func(agent string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "delegate_agent", Args: `{"agent":"` + agent + `","prompt":"review a.go"}`}}}
	}
	srv := mockllm.NewOpenAIServer(call("codex"), call("codex"), call("claude"), call("ghost"), mockllm.OpenAITurn{Text: "All reviewed."})
	defer srv.Close()
	var mu sync.Mutex
	var ran []string
	delegate := func(_ context.Context, r adapters.DelegateRequest) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, r.Agent)
		if r.Agent == "ghost" {
			return "", adapters.ErrNotInstalled
		}
		return r.Agent + " says: looks fine", nil
	}
	var asked []string
	cwd := t.TempDir()
	gate := newGate(t, cwd).answer(func(req *adapters.PermissionRequest) string {
		asked = append(asked, req.Tool.Title)
		return "allow_always"
	})
	s, err := New(Profile{Name: "test", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 200000},
		Options{IdleTimeout: 5 * time.Second}).Start(context.Background(),
		adapters.SessionOptions{Cwd: cwd, Delegate: delegate, DelegateAgents: []string{"codex", "claude"}, Permission: gate.ask})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("get reviews"))
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := drain(t, ch)
	if strings.Join(asked, "|") != "delegate to codex|delegate to claude|delegate to ghost" {
		t.Fatalf("asked %q: an always answer must hold for that agent only", asked)
	}
	if strings.Join(ran, ",") != "codex,codex,claude,ghost" {
		t.Fatalf("delegated to %q", ran)
	}
	reqs := srv.Requests()
	if desc := toolDescription(reqs[0].Tools, "delegate_agent"); !strings.Contains(desc, "codex, claude") {
		t.Fatalf("delegate_agent description %q does not name the agents", desc)
	}
	if got := mockllm.MessageText(lastOf(reqs[1])); !strings.Contains(got, "codex says: looks fine") {
		t.Fatalf("the model read %q", got)
	}
	if got := mockllm.MessageText(lastOf(reqs[4])); !strings.Contains(got, "error:") {
		t.Fatalf("a failed delegation read %q", got)
	}
	var failed int
	for _, ev := range evs {
		if ev.Type == adapters.EventToolUpdate && ev.Tool.Status == adapters.StatusFailed {
			failed++
		}
	}
	if failed != 1 {
		t.Fatalf("%d failed tool calls, want the ghost's", failed)
	}
}

func lastOf(r mockllm.OpenAIRequest) map[string]any { return r.Messages[len(r.Messages)-1] }

func toolDescription(tools []map[string]any, name string) string {
	for _, t := range tools {
		if f, ok := t["function"].(map[string]any); ok && f["name"] == name {
			d, _ := f["description"].(string)
			return d
		}
	}
	return ""
}

// timeout_seconds is the model's to send: any int reaches the delegate as a duration that is
// neither negative nor wrapped (a wrapped one timed the delegate turn out at once).
func TestDelegateAgent_AnyTimeoutSeconds(t *testing.T) {
	call := func(secs string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "delegate_agent",
			Args: `{"agent":"codex","prompt":"review","timeout_seconds":` + secs + `}`}}}
	}
	srv := mockllm.NewOpenAIServer(call("60"), call("9223372036854775807"), call("-5"), mockllm.OpenAITurn{Text: "done"})
	defer srv.Close()
	var mu sync.Mutex
	var got []time.Duration
	delegate := func(_ context.Context, r adapters.DelegateRequest) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r.Timeout)
		return "ok", nil
	}
	cwd := t.TempDir()
	gate := newGate(t, cwd).answer(func(*adapters.PermissionRequest) string { return "allow_always" })
	s, err := New(Profile{Name: "test", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 200000},
		Options{IdleTimeout: 5 * time.Second}).Start(context.Background(),
		adapters.SessionOptions{Cwd: cwd, Delegate: delegate, DelegateAgents: []string{"codex"}, Permission: gate.ask})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("review"))
	if err != nil {
		t.Fatal(err)
	}
	drain(t, ch)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != time.Minute || got[1] < 100*365*24*time.Hour || got[2] != 0 {
		t.Fatalf("timeouts %v, want 1m, the longest, 0 (the default)", got)
	}
}
