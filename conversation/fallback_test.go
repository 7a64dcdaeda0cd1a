package conversation

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
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
		{"bad cwd", adapters.StartError("x", fmt.Errorf("%w: gone", proc.ErrBadDir)), ClassNone},
		{"unknown agent", fmt.Errorf("%w: y", adapters.ErrUnknownAgent), ClassNone},
		{"a crash while taking the prompt", &adapters.TurnError{Info: adapters.ErrorInfo{Code: adapters.CodeCrash}}, ClassCrash},
		{"closed", adapters.ErrClosed, ClassCrash},
		{"anything else", errors.New("boom"), ClassStart},
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
		Message: fmt.Sprintf("API request failed with HTTP %d, retrying", status), Code: adapters.CodeProvider, Status: status}}
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
			if d == nil || !d.Fatal || Classify(d) != tt.want {
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
