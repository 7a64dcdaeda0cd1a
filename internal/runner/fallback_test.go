package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

func crash(code adapters.ErrorCode) adapters.Event {
	return adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "first failed", Code: code, Fatal: true}}
}

func TestRun_FallbackOnlyWhenTheAgentCouldNotWork(t *testing.T) {
	ok := func() *fakeAdapter {
		return &fakeAdapter{name: "second", script: steps(text("second answered"), done(adapters.StopEndTurn))}
	}
	tool := adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Title: "Run make", Kind: adapters.KindExecute}}
	tests := []struct {
		name       string
		first      *fakeAdapter
		second     *fakeAdapter
		wantAgent  string
		wantExit   int
		wantReason string // "" means no fallback
	}{
		{"not installed", &fakeAdapter{startErr: fmt.Errorf("x: %w", adapters.ErrNotInstalled)}, ok(), "second", ExitOK, "first is not installed"},
		{"not logged in", &fakeAdapter{startErr: fmt.Errorf("x: %w", adapters.ErrNotAuthenticated)}, ok(), "second", ExitOK, "first is not logged in"},
		{"rate limit exhausted", &fakeAdapter{script: steps(crash(adapters.CodeRateLimit), done(adapters.StopEndTurn))}, ok(), "second", ExitOK, "first is rate-limited"},
		{"crash before any tool", &fakeAdapter{script: steps(text("thinking"), crash(adapters.CodeCrash), done(adapters.StopEndTurn))}, ok(), "second", ExitOK, "first crashed"},
		{"crash after a tool started", &fakeAdapter{script: steps(tool, crash(adapters.CodeCrash), done(adapters.StopEndTurn))}, ok(), "first", ExitAgentError, ""},
		{"a provider error is the answer", &fakeAdapter{script: steps(crash(adapters.CodeProvider), done(adapters.StopEndTurn))}, ok(), "first", ExitAgentError, ""},
		{"the last attempt's exit code", &fakeAdapter{startErr: fmt.Errorf("x: %w", adapters.ErrNotInstalled)},
			&fakeAdapter{name: "second", startErr: fmt.Errorf("y: %w", adapters.ErrNotAuthenticated)}, "second", ExitNotAuthenticated, "first is not installed"},
	}
	for _, tt := range tests {
		for _, format := range []Format{FormatText, FormatJSONL} {
			t.Run(tt.name+"/"+string(format), func(t *testing.T) {
				first := &fakeAdapter{name: "first", startErr: tt.first.startErr, script: tt.first.script}
				second := &fakeAdapter{name: "second", startErr: tt.second.startErr, script: tt.second.script}
				reg := adapters.NewRegistry()
				reg.Register(first)
				reg.Register(second)
				var stdout, stderr bytes.Buffer
				s := Run(context.Background(), Options{Registry: reg, Agent: "first", Fallback: []string{"second"}, Cwd: t.TempDir(),
					ReadPrompt: func() (string, error) { return "fix the build", nil }, Approve: conversation.ApproveAll, Format: format,
					Stdout: &stdout, Stderr: &stderr, Now: fixedNow, Grace: 200 * time.Millisecond, StopAll: func() {}, SkillsUserDir: t.TempDir()})
				if s.Agent != tt.wantAgent || s.ExitCode != tt.wantExit {
					t.Fatalf("agent %q exit %d, want %q %d\nstderr:\n%s", s.Agent, s.ExitCode, tt.wantAgent, tt.wantExit, stderr.String())
				}
				fellBack := strings.Contains(stderr.String(), tt.wantReason+"; continuing with second")
				if tt.wantReason == "" {
					fellBack = strings.Contains(stderr.String(), "continuing with")
					if fellBack || len(s.Attempts) != 1 {
						t.Fatalf("fell back: attempts %+v\nstderr:\n%s", s.Attempts, stderr.String())
					}
					return
				}
				if !fellBack || len(s.Attempts) != 2 || s.Attempts[0].Fallback != tt.wantReason || s.Attempts[1].Agent != "second" {
					t.Fatalf("attempts %+v\nstderr:\n%s", s.Attempts, stderr.String())
				}
				second.mu.Lock()
				got := adapters.PromptText(second.prompt)
				second.mu.Unlock()
				if tt.wantExit == ExitOK && got != "fix the build" {
					t.Errorf("the fallback agent got prompt %q, want the one read once", got)
				}
				if format == FormatJSONL {
					checkFallbackLines(t, stdout.String(), tt.wantReason)
				}
			})
		}
	}
}

func checkFallbackLines(t *testing.T, out, reason string) {
	t.Helper()
	var sawFallback bool
	var summary map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not json: %q", l)
		}
		switch m["type"] {
		case "fallback":
			sawFallback = m["from"] == "first" && m["to"] == "second" && m["reason"] == reason
		case "summary":
			summary = m
		}
	}
	if !sawFallback || summary == nil || summary["agent"] != "second" || len(summary["attempts"].([]any)) != 2 {
		t.Fatalf("jsonl lacks the fallback event or the summary's agent and attempts:\n%s", out)
	}
}
