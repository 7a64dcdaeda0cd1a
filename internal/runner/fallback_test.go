package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
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
		{"not installed", &fakeAdapter{startErr: fmt.Errorf("x: %w", adapters.ErrNotInstalled)}, ok(), "second", conversation.ExitOK, "first is not installed"},
		{"not logged in", &fakeAdapter{startErr: fmt.Errorf("x: %w", adapters.ErrNotAuthenticated)}, ok(), "second", conversation.ExitOK, "first is not logged in"},
		{"rate limit exhausted", &fakeAdapter{script: steps(crash(adapters.CodeRateLimit), done(adapters.StopEndTurn))}, ok(), "second", conversation.ExitOK, "first is rate-limited"},
		{"crash before any tool", &fakeAdapter{script: steps(text("thinking"), crash(adapters.CodeCrash), done(adapters.StopEndTurn))}, ok(), "second", conversation.ExitOK, "first crashed"},
		{"crash after a tool started", &fakeAdapter{script: steps(tool, crash(adapters.CodeCrash), done(adapters.StopEndTurn))}, ok(), "first", conversation.ExitAgentError, ""},
		{"a provider error is the answer", &fakeAdapter{script: steps(crash(adapters.CodeProvider), done(adapters.StopEndTurn))}, ok(), "first", conversation.ExitAgentError, ""},
		{"the last attempt's exit code", &fakeAdapter{startErr: fmt.Errorf("x: %w", adapters.ErrNotInstalled)},
			&fakeAdapter{name: "second", startErr: fmt.Errorf("y: %w", adapters.ErrNotAuthenticated)}, "second", conversation.ExitNotAuthenticated, "first is not installed"},
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
					Stdout: &stdout, Stderr: &stderr, Now: fixedNow, Grace: time.Minute, StopAll: func() {}, SkillsUserDir: t.TempDir()})
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
				if tt.wantExit == conversation.ExitOK && got != "fix the build" {
					t.Errorf("the fallback agent got prompt %q, want the one read once", got)
				}
				if format == FormatJSONL {
					checkFallbackLines(t, stdout.String(), tt.wantReason)
				}
			})
		}
	}
}

// The native loop's provider answering 500 (retried without end) or 401
// hands the run over in bounded time, unless a tool call started.
func TestRun_FallbackOnProviderFailures(t *testing.T) {
	fail := func(status, n int) []mockllm.OpenAITurn {
		turns := make([]mockllm.OpenAITurn, n)
		for i := range turns {
			turns[i] = mockllm.OpenAITurn{Status: status}
		}
		return turns
	}
	toolFirst := append([]mockllm.OpenAITurn{{ToolCalls: []mockllm.OpenAIToolCall{{Name: "read_file", Args: `{"path":"a.txt"}`}}}}, fail(500, 200)...)
	tests := []struct {
		name       string
		turns      []mockllm.OpenAITurn
		retries    int
		wantAgent  string
		wantReason string
	}{
		{"500 retried past the bound", fail(500, 200), 1000, "second", "first's provider is failing"},
		{"401 at once", fail(401, 1), 1000, "second", "first is not logged in"},
		{"500 after a tool call started", toolFirst, 0, "first", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(tt.turns...)
			defer srv.Close()
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "first", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true},
				openai.Options{MaxRetries: &tt.retries}))
			reg.Register(&fakeAdapter{name: "second", script: steps(text("second answered"), done(adapters.StopEndTurn))})
			var stdout, stderr bytes.Buffer
			s := Run(context.Background(), Options{Registry: reg, Agent: "first", Fallback: []string{"second"}, Cwd: t.TempDir(),
				ReadPrompt: func() (string, error) { return "fix the build", nil }, Approve: conversation.ApproveAll, Format: FormatText,
				Stdout: &stdout, Stderr: &stderr, Now: fixedNow, Grace: time.Minute, StopAll: func() {},
				SkillsUserDir: t.TempDir(), ProviderTimeout: time.Millisecond})
			if s.Agent != tt.wantAgent {
				t.Fatalf("agent %q exit %d, want %q\nstderr:\n%s", s.Agent, s.ExitCode, tt.wantAgent, stderr.String())
			}
			if tt.wantReason == "" {
				if len(s.Attempts) != 1 || s.ExitCode != conversation.ExitAgentError {
					t.Fatalf("fell back or succeeded: exit %d attempts %+v\nstderr:\n%s", s.ExitCode, s.Attempts, stderr.String())
				}
				return
			}
			if s.ExitCode != conversation.ExitOK || len(s.Attempts) != 2 || s.Attempts[0].Fallback != tt.wantReason {
				t.Fatalf("exit %d attempts %+v\nstderr:\n%s", s.ExitCode, s.Attempts, stderr.String())
			}
		})
	}
}

// A claude that exits at once, before or while hub writes the prompt
// (a race: its stdin may be open, broken or known closed), is always a
// crash told with its exit status and stderr, never "could not start"
// nor a broken pipe.
func TestRun_CrashAtStartIsACrashWithItsStatus(t *testing.T) {
	exitStatus := regexp.MustCompile(`exit (?:code|status) 3\b`)
	for i := range 20 {
		reg := adapters.NewRegistry()
		reg.Register(claude.New(config.AgentConfig{Command: proctest.Command("err:boom: bad config\n", "exit:3")}, zerolog.Nop()))
		reg.Register(&fakeAdapter{name: "second", script: steps(text("second answered"), done(adapters.StopEndTurn))})
		var stdout, stderr bytes.Buffer
		s := Run(context.Background(), Options{Registry: reg, Agent: "claude", Fallback: []string{"second"}, Cwd: t.TempDir(),
			ReadPrompt: func() (string, error) { return "fix the build", nil }, Approve: conversation.ApproveAll, Format: FormatText,
			Stdout: &stdout, Stderr: &stderr, Now: fixedNow, Grace: time.Minute, StopAll: func() {}, SkillsUserDir: t.TempDir()})
		if len(s.Attempts) != 2 || s.Attempts[0].Fallback != "claude crashed" {
			t.Fatalf("run %d: attempts %+v\nstderr:\n%s", i, s.Attempts, stderr.String())
		}
		if a := s.Attempts[0]; !strings.Contains(a.Detail, "boom: bad config") || !exitStatus.MatchString(a.Error) {
			t.Fatalf("run %d: the crash is told as %q, detail %q", i, a.Error, a.Detail)
		}
	}
}

// notReady is an agent whose program is missing, as adapters.Ready sees it.
type notReady struct{ *fakeAdapter }

func (notReady) Ready() error { return fmt.Errorf("gone: %w", adapters.ErrNotInstalled) }

// A fallback agent that is not ready is passed over, as hub acp and
// delegates pass it over, and never started; the attempts still name it
// for a CI script, with its exit code, and a turn no ready agent could
// take over keeps its own failure.
func TestRun_FallbackPassesOverAgentsNotReady(t *testing.T) {
	tests := []struct {
		name      string
		fallback  []string
		wantAgent string
		wantExit  int
		want      []Attempt
	}{
		{"a ready agent follows", []string{"gone", "second"}, "second", conversation.ExitOK, []Attempt{
			{Agent: "first", ExitCode: conversation.ExitAgentError, Fallback: "first is rate-limited"},
			{Agent: "gone", ExitCode: conversation.ExitNotInstalled}, {Agent: "second"}}},
		{"none follows", []string{"gone"}, "first", conversation.ExitAgentError, []Attempt{
			{Agent: "first", ExitCode: conversation.ExitAgentError}, {Agent: "gone", ExitCode: conversation.ExitNotInstalled}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gone := &fakeAdapter{name: "gone", startErr: fmt.Errorf("x: %w", adapters.ErrNotInstalled)}
			first := &fakeAdapter{name: "first", script: steps(crash(adapters.CodeRateLimit), done(adapters.StopEndTurn))}
			s, _, stderr := runFake(t, context.Background(), first, func(o *Options) {
				o.Registry.Register(notReady{gone})
				o.Registry.Register(&fakeAdapter{name: "second", script: steps(text("second answered"), done(adapters.StopEndTurn))})
				o.Fallback = tt.fallback
			})
			var got []Attempt
			for _, a := range s.Attempts {
				got = append(got, Attempt{Agent: a.Agent, ExitCode: a.ExitCode, Fallback: a.Fallback})
			}
			gone.mu.Lock()
			defer gone.mu.Unlock()
			if s.Agent != tt.wantAgent || s.ExitCode != tt.wantExit || gone.starts != 0 || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("agent %q exit %d, %d starts of gone, attempts %+v\nwant %q %d %+v\nstderr:\n%s",
					s.Agent, s.ExitCode, gone.starts, got, tt.wantAgent, tt.wantExit, tt.want, stderr)
			}
		})
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
