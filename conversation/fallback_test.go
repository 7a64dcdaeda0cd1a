package conversation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/personas"
)

func TestClassify_EveryAgentAlike(t *testing.T) {
	tests := []struct {
		name string
		e    *adapters.ErrorInfo
		want Class
	}{
		{"none", nil, ClassNone},
		{"not installed", &adapters.ErrorInfo{Code: adapters.CodeNotInstalled}, ClassNotInstalled},
		{"did not start", &adapters.ErrorInfo{Code: adapters.CodeStart}, ClassStart},
		{"auth code", &adapters.ErrorInfo{Code: adapters.CodeAuth}, ClassAuth},
		{"401 retry", &adapters.ErrorInfo{Code: adapters.CodeProvider, Status: 401}, ClassAuth},
		{"403", &adapters.ErrorInfo{Status: 403}, ClassAuth},
		{"auth phrase", &adapters.ErrorInfo{Code: adapters.CodeAgent, Message: "Gemini API key is missing or not configured."}, ClassAuth},
		{"rate limit", &adapters.ErrorInfo{Code: adapters.CodeRateLimit}, ClassRateLimit},
		{"429", &adapters.ErrorInfo{Code: adapters.CodeProvider, Status: 429}, ClassRateLimit},
		{"500", &adapters.ErrorInfo{Code: adapters.CodeProvider, Status: 500}, ClassProvider},
		{"529 overloaded", &adapters.ErrorInfo{Code: adapters.CodeProvider, Message: "API Error: Overloaded"}, ClassProvider},
		{"codex reconnect", &adapters.ErrorInfo{Code: adapters.CodeProvider, Message: "Reconnecting... 1/5 (last status: 502 Bad Gateway)"}, ClassProvider},
		{"a provider's answer", &adapters.ErrorInfo{Code: adapters.CodeProvider, Status: 400, Message: "HTTP 400: bad request"}, ClassNone},
		{"crash", &adapters.ErrorInfo{Code: adapters.CodeCrash, Message: "exited (exit code 2)"}, ClassCrash},
		{"crash saying it is logged out", &adapters.ErrorInfo{Code: adapters.CodeCrash, Message: "exited: not logged in"}, ClassAuth},
		{"hook", &adapters.ErrorInfo{Code: adapters.CodeHook, Message: "unauthorized command"}, ClassNone},
		{"context full", &adapters.ErrorInfo{Code: adapters.CodeContext}, ClassNone},
		{"agent error", &adapters.ErrorInfo{Code: adapters.CodeAgent, Message: "tests failed"}, ClassNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.e); got != tt.want {
				t.Fatalf("Classify(%+v) = %q, want %q", tt.e, got, tt.want)
			}
		})
	}
}

func TestClassifyStart_StartErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{"none", nil, ClassNone},
		{"not installed", fmt.Errorf("x: %w", adapters.ErrNotInstalled), ClassNotInstalled},
		{"not found", fmt.Errorf("spawn: %w", proc.ErrNotFound), ClassNotInstalled},
		{"not authenticated", fmt.Errorf("x: %w", adapters.ErrNotAuthenticated), ClassAuth},
		{"auth phrase", errors.New("Invalid API key"), ClassAuth},
		{"bad cwd", adapters.StartError(fmt.Errorf("%w: gone", proc.ErrBadDir)), ClassNone},
		{"unknown agent", fmt.Errorf("%w: y", adapters.ErrUnknownAgent), ClassNone},
		{"a crash while taking the prompt", &adapters.TurnError{Info: adapters.ErrorInfo{Code: adapters.CodeCrash}}, ClassCrash},
		{"closed", adapters.ErrClosed, ClassCrash},
		{"anything else", errors.New("boom"), ClassStart},
		// an agent gone before it answered initialize (acpclient's
		// TestStart_AgentGoneBeforeInitializeIsOneMessage makes these)
		{"gone before initialize", errors.New("gone could not start: it exited before answering initialize (exit code 1): fake: no config found"), ClassStart},
		{"gone before initialize, logged out", errors.New("gone could not start: it exited before answering initialize (exit code 1): at main (cli.js:1:1) (stderr: Error: not logged in | at main (cli.js:1:1))"), ClassAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClassifyStart(tt.err); got != tt.want {
				t.Fatalf("ClassifyStart(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func TestFallbackReason_NeverAfterAToolCall(t *testing.T) {
	tests := []struct {
		class Class
		tool  bool
		want  string
	}{
		{ClassNotInstalled, false, "a is not installed"},
		{ClassStart, false, "a could not start"},
		{ClassAuth, false, "a is not logged in"},
		{ClassRateLimit, false, "a is rate-limited"},
		{ClassProvider, false, "a's provider is failing"},
		{ClassCrash, false, "a crashed"},
		{ClassNone, false, ""},
		{ClassCrash, true, ""},
		{ClassAuth, true, ""},
		{ClassProvider, true, ""},
	}
	for _, tt := range tests {
		if got := FallbackReason("a", tt.class, tt.tool); got != tt.want {
			t.Errorf("FallbackReason(%q, tool %v) = %q, want %q", tt.class, tt.tool, got, tt.want)
		}
	}
}

func retry(status int) adapters.Event {
	return adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{
		Message: fmt.Sprintf("API request failed with HTTP %d, retrying", status), Code: adapters.CodeProvider, Status: status, Retry: true}}
}

func TestWatch_DecidesEarly(t *testing.T) {
	tool := adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t"}}
	text := adapters.Event{Type: adapters.EventText, Text: "hi"}
	tests := []struct {
		name   string
		bound  time.Duration
		events []adapters.Event
		want   Class // ClassNone: the watch never cancels
	}{
		{"401 at the first retry", time.Hour, []adapters.Event{retry(401)}, ClassAuth},
		{"500 past the bound", time.Millisecond, []adapters.Event{retry(500)}, ClassProvider},
		{"429 past the bound", time.Millisecond, []adapters.Event{retry(429)}, ClassRateLimit},
		{"500 within the bound", time.Hour, []adapters.Event{retry(500)}, ClassNone},
		{"the provider recovers", time.Hour, []adapters.Event{retry(500), text}, ClassNone},
		{"a tool call started", time.Hour, []adapters.Event{tool, retry(401)}, ClassNone},
		{"a fatal error is the agent's to report", time.Hour, []adapters.Event{{Type: adapters.EventError,
			Error: &adapters.ErrorInfo{Code: adapters.CodeAuth, Fatal: true}}}, ClassNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cancelled := make(chan struct{})
			w := NewWatch(tt.bound, func() { close(cancelled) })
			for _, ev := range tt.events {
				w.Observe(ev)
			}
			if tt.want == ClassNone {
				if d := w.Stop(); d != nil {
					t.Fatalf("decided %+v", d)
				}
				return
			}
			<-cancelled
			d := w.Stop()
			if d == nil || !d.Fatal || d.Retry || Classify(d) != tt.want { // the turn's failure, no retry notice
				t.Fatalf("decided %+v, want a fatal %q", d, tt.want)
			}
		})
	}
}

func TestWatch_NilWatchesNothing(t *testing.T) {
	var w *Watch
	w.Observe(retry(401))
	if d := w.Stop(); d != nil {
		t.Fatalf("nil watch decided %+v", d)
	}
}

// A fallback agent of a persona runs as the persona, under its own name;
// one that lacks the persona's mode cannot run, so the walk passes it over.
func TestFallbackAgents_RunAsThePersona(t *testing.T) {
	reg := adapters.NewRegistry()
	for _, n := range []string{"a", "b", "c"} {
		reg.Register(namedAdapter(n))
	}
	reg.Register(&personas.Adapter{P: personas.Persona{Name: "p", Model: "a-model", Trusted: true}, Backend: namedAdapter("a")})
	reg.Register(&personas.Adapter{P: personas.Persona{Name: "q", Mode: "review", Trusted: true}, Backend: namedAdapter("a")})
	tests := []struct {
		name, first string
		wantPersona string // of b, "" when it runs as itself
		wantReady   bool
	}{
		{"an agent's fallback runs as itself", "a", "", true},
		{"a persona's fallback runs as the persona", "p", "p", true},
		{"one lacking the persona's mode cannot run", "q", "q", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FallbackAgents(reg, tt.first, []string{"b"})
			b, _ := got.Get("b")
			persona := ""
			if p, ok := b.(*personas.Adapter); ok && p.P.Model == "" { // a-model is a's
				persona = p.P.Name
			}
			if persona != tt.wantPersona || b.Name() != "b" {
				t.Errorf("b is %q running as persona %q, want b as %q", b.Name(), persona, tt.wantPersona)
			}
			if err := adapters.Ready(b); (err == nil) != tt.wantReady {
				t.Errorf("b ready: %v, want ready %v", err, tt.wantReady)
			}
			if c, _ := got.Get("c"); c != namedAdapter("c") {
				t.Errorf("c, not on the list, is %#v", c)
			}
		})
	}
}

type namedAdapter string

func (n namedAdapter) Name() string                      { return string(n) }
func (namedAdapter) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (namedAdapter) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	return nil, adapters.ErrUnsupported
}

// The walk hands a turn on only while an agent could not do the work and
// no tool call started, to the next agent of the list that is known,
// ready and not tried; it tells the front end which it passed over, and a
// turn that has no ready agent left is not watched.
func TestFallbacks_Walk(t *testing.T) {
	type outcome struct {
		class Class
		tool  bool
	}
	rate, crash := outcome{ClassRateLimit, false}, outcome{ClassCrash, false}
	tests := []struct {
		name     string
		list     []string
		outcomes map[string]outcome // an agent not here does the work
		cancel   bool               // the turn is cancelled during the first attempt
		want     []string
		wantWhy  string
	}{
		{"the first does the work", []string{"b"}, nil, false, []string{"try a watched"}, ""},
		{"a failure that stands", []string{"b"}, map[string]outcome{"a": {ClassNone, false}}, false, []string{"try a watched"}, ""},
		{"not after a tool call", []string{"b"}, map[string]outcome{"a": {ClassCrash, true}}, false, []string{"try a watched"}, ""},
		{"the next ready agent", []string{"a", "chain", "nobody", "down", "b", "c"}, map[string]outcome{"a": rate}, false,
			[]string{"try a watched", "skip chain", "skip nobody", "skip down", "a to b: a is rate-limited", "try b watched"}, ""},
		{"down the list", []string{"b", "b", "c"}, map[string]outcome{"a": rate, "b": crash}, false,
			[]string{"try a watched", "a to b: a is rate-limited", "try b watched", "b to c: b crashed", "try c"}, ""},
		{"none left", []string{"down", "nobody"}, map[string]outcome{"a": rate}, false,
			[]string{"try a", "skip down", "skip nobody"}, "a is rate-limited"},
		{"every agent failed", []string{"b"}, map[string]outcome{"a": rate, "b": crash}, false,
			[]string{"try a watched", "a to b: a is rate-limited", "try b"}, "b crashed"},
		{"cancelled", []string{"b"}, map[string]outcome{"a": rate}, true, []string{"try a watched"}, "a is rate-limited"},
	}
	reg := adapters.NewRegistry()
	for _, n := range []string{"a", "b", "c", "down", "chain"} {
		reg.Register(namedAdapter(n))
	}
	ready := func(a adapters.Adapter) error {
		return map[string]error{"down": adapters.ErrNotInstalled, "chain": errors.New("a loop")}[a.Name()]
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []string
			walk := Fallbacks{Registry: reg, List: tt.list, Ready: ready,
				Skipped: func(agent string, err error) { got = append(got, "skip "+agent) }}
			why := walk.Walk(ctx, "a", func(agent string, watch bool) (Class, bool) {
				got = append(got, map[bool]string{true: "try " + agent + " watched", false: "try " + agent}[watch])
				if tt.cancel {
					cancel()
				}
				return tt.outcomes[agent].class, tt.outcomes[agent].tool
			}, func(from, to, why string) { got = append(got, from+" to "+to+": "+why) })
			if !slices.Equal(got, tt.want) || why != tt.wantWhy {
				t.Fatalf("walk %q why %q\nwant %q why %q", got, why, tt.want, tt.wantWhy)
			}
		})
	}
}
