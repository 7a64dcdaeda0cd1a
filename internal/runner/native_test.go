package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/mockllm"
)

// Exit 3 (not installed) cannot happen with the native loop: it spawns no
// binary; an unreachable endpoint is an agent error (exit 1).

type nativeCase struct {
	name    string
	turns   []mockllm.OpenAITurn
	mod     func(o *Options)
	cancel  bool // cancel the context once the first request arrived
	signal  bool // send a signal on Options.Signals instead
	want    int
	text    string // exact text stdout
	stderr  string // text-format stderr fragment
	jsonl   string // jsonl stdout fragment besides the summary
	summary string // summary "error" fragment
}

func nativeCases() []nativeCase {
	hang := []mockllm.OpenAITurn{{Text: "thinking", Hang: true}}
	return []nativeCase{
		{name: "completed", turns: []mockllm.OpenAITurn{{Text: "native answer", ChunkSize: 64}}, want: conversation.ExitOK, text: "native answer\n", jsonl: `"text":"native answer"`},
		{name: "server error", turns: []mockllm.OpenAITurn{{Status: 500, ErrorBody: `{"error":{"message":"upstream exploded"}}`}}, want: conversation.ExitAgentError,
			stderr: "upstream exploded", summary: "upstream exploded"},
		{name: "malformed stream", turns: []mockllm.OpenAITurn{{Raw: "data: {not json\n\n"}}, want: conversation.ExitAgentError, summary: ""},
		{name: "not authenticated", turns: []mockllm.OpenAITurn{{Status: 401}}, want: conversation.ExitNotAuthenticated, stderr: "hub doctor --agent openai", summary: "not authenticated"},
		{name: "timeout", turns: hang, mod: func(o *Options) { o.Timeout = 300 * time.Millisecond }, want: conversation.ExitTimeout,
			stderr: "timed out after 300ms", summary: "timed out after 300ms"},
		{name: "interrupted", turns: hang, cancel: true, want: conversation.ExitInterrupted, stderr: "interrupted", summary: "interrupted"},
		{name: "signal", turns: hang, signal: true, want: conversation.ExitInterrupted, summary: "interrupted"},
		{name: "write denied read-only", turns: []mockllm.OpenAITurn{
			{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"out.txt","content":"x"}`}}},
			{Text: "could not write"}}, want: conversation.ExitDenied, text: "could not write\n",
			jsonl: `"decision":{"optionId"`, summary: "1 permission request(s) denied by --approve read-only"},
		{name: "write denied none", turns: []mockllm.OpenAITurn{
			{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"touch x"}`}}},
			{Text: "skipped"}}, mod: func(o *Options) { o.Approve = conversation.ApproveNone }, want: conversation.ExitDenied, text: "skipped\n",
			summary: "denied by --approve none"},
		{name: "write allowed", turns: []mockllm.OpenAITurn{
			{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"out.txt","content":"x"}`}}},
			{Text: "wrote it"}}, mod: func(o *Options) { o.Approve = conversation.ApproveAll }, want: conversation.ExitOK, text: "wrote it\n"},
		{name: "usage", turns: nil, mod: func(o *Options) { o.Approve = "sometimes" }, want: conversation.ExitUsage, stderr: "--approve must be", summary: "--approve must be"},
	}
}

func TestRun_NativeLoopMock(t *testing.T) {
	for _, c := range nativeCases() {
		for _, format := range []Format{FormatText, FormatJSONL} {
			t.Run(c.name+"/"+string(format), func(t *testing.T) {
				srv := mockllm.NewOpenAIServer(c.turns...)
				defer srv.Close()
				reg := adapters.NewRegistry()
				retries := 0
				reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true},
					openai.Options{MaxRetries: &retries}))
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				sigs := make(chan os.Signal, 1)
				if c.cancel || c.signal {
					go func() {
						<-srv.Hanging()
						if c.cancel {
							cancel()
						} else {
							sigs <- os.Interrupt
						}
					}()
				}
				cwd := t.TempDir()
				var out, errb bytes.Buffer
				o := Options{Registry: reg, Agent: "openai", Cwd: cwd, Prompt: "hi", Format: format, Signals: sigs,
					Stdout: &out, Stderr: &errb, Timeout: 20 * time.Second, Grace: 2 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()}
				if c.mod != nil {
					c.mod(&o)
				}
				s := Run(ctx, o)
				if s.ExitCode != c.want {
					t.Fatalf("exit %d want %d: %s\nstdout:\n%s\nstderr:\n%s", s.ExitCode, c.want, s.Error, out.String(), errb.String())
				}
				if c.name == "write denied read-only" {
					if _, err := os.Stat(filepath.Join(cwd, "out.txt")); err == nil {
						t.Error("denied write happened")
					}
				}
				if format == FormatText {
					checkNativeText(t, c, out.String(), errb.String())
				} else {
					checkNativeJSONL(t, c, out.String())
				}
			})
		}
	}
}

func checkNativeText(t *testing.T, c nativeCase, stdout, stderr string) {
	t.Helper()
	if c.text != "" && stdout != c.text {
		t.Errorf("stdout %q, want %q", stdout, c.text)
	}
	if c.want != conversation.ExitOK && c.want != conversation.ExitDenied && strings.Contains(stdout, "{") {
		t.Errorf("text stdout carries JSON: %q", stdout)
	}
	if !strings.Contains(stderr, c.stderr) {
		t.Errorf("stderr lacks %q:\n%s", c.stderr, stderr)
	}
}

func checkNativeJSONL(t *testing.T, c nativeCase, stdout string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var sum struct {
		V        int    `json:"v"`
		Type     string `json:"type"`
		ExitCode int    `json:"exitCode"`
		Error    string `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.V != 1 || sum.Type != "summary" {
		t.Fatalf("last line is not a summary (%v):\n%s", err, stdout)
	}
	if sum.ExitCode != c.want || !strings.Contains(sum.Error, c.summary) || (c.want == conversation.ExitOK) != (sum.Error == "") {
		t.Errorf("summary %+v, want exit %d error ~%q", sum, c.want, c.summary)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %q", l)
		}
	}
	if !strings.Contains(stdout, c.jsonl) {
		t.Errorf("jsonl lacks %q:\n%s", c.jsonl, stdout)
	}
}

// hub run --resume continues a native session from its transcript: the
// second run's request holds the first run's turn.
func TestRun_NativeResume(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "the answer is 42"}, mockllm.OpenAITurn{Text: "still 42"})
	defer srv.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "local", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true},
		openai.Options{TranscriptDir: t.TempDir()}))
	cwd := t.TempDir()
	run := func(prompt, resume string) Summary {
		var out, errb bytes.Buffer
		s := Run(context.Background(), Options{Registry: reg, Agent: "local", Cwd: cwd, Prompt: prompt, ResumeID: resume, Format: FormatJSONL,
			Stdout: &out, Stderr: &errb, Timeout: 20 * time.Second, Grace: 2 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
		if s.ExitCode != conversation.ExitOK {
			t.Fatalf("exit %d: %s\n%s", s.ExitCode, s.Error, errb.String())
		}
		return s
	}
	first := run("what is the answer?", "")
	if first.AgentSessionID == "" {
		t.Fatal("no session id to resume")
	}
	second := run("and now?", first.AgentSessionID)
	if second.AgentSessionID != first.AgentSessionID {
		t.Fatalf("resumed session id %q, want %q", second.AgentSessionID, first.AgentSessionID)
	}
	msgs := srv.Requests()[1].Messages
	var got []string
	for _, m := range msgs[1:] {
		got = append(got, mockllm.MessageText(m))
	}
	if strings.Join(got, "|") != "what is the answer?|the answer is 42|and now?" {
		t.Fatalf("resumed request: %q", got)
	}
}
