package claude

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/fixture"
)

func TestMain(m *testing.M) {
	if s := os.Getenv("HUB_FAKE_CLAUDE"); s != "" {
		claudeFake(s)
		os.Exit(0)
	}
	exits = fixture.WatchExits()
	os.Exit(m.Run())
}

// exits counts the waits for the exit of a process a test watches.
var exits *fixture.Exits

// A claude that answered its turn runs on: Exit reads nil at once, never
// waiting for an exit that is not coming.
func TestSession_ExitOfALiveClaudeIsAtOnce(t *testing.T) {
	_, s := startFake(t, "text", adapters.SessionOptions{})
	waits := exits.Watch(t, s.p)
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if d := last(collect(t, ch, nil)); d.StopReason != adapters.StopEndTurn {
		t.Fatalf("turn ended %+v", d)
	}
	if x := s.Exit(); x != nil || waits.Load() != 0 || s.p.Exited() {
		t.Errorf("Exit() = %+v after %d waits for the exit, running %v; want nil at once while it runs", x, waits.Load(), !s.p.Exited())
	}
}

func startFake(t *testing.T, scenario string, opts adapters.SessionOptions) (*Adapter, *Session) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := New(config.AgentConfig{Command: config.Command{exe},
		Env: map[string]string{"HUB_FAKE_CLAUDE": scenario}}, zerolog.Nop())
	if opts.CancelGrace == 0 {
		opts.CancelGrace = 2 * time.Second
	}
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	s, err := a.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return a, s.(*Session)
}

// collect drains a turn, answering permissions with decide.
func collect(t *testing.T, ch <-chan adapters.Event, decide func(*adapters.PermissionRequest)) []adapters.Event {
	t.Helper()
	var out []adapters.Event
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			if ev.Type == adapters.EventPermission && decide != nil {
				decide(ev.Permission)
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatalf("turn did not end; got %v", out)
		}
	}
}

func last(evs []adapters.Event) adapters.Event { return evs[len(evs)-1] }

func find(evs []adapters.Event, typ adapters.EventType) *adapters.Event {
	for i := range evs {
		if evs[i].Type == typ {
			return &evs[i]
		}
	}
	return nil
}

func TestSession_TextTurns(t *testing.T) {
	_, s := startFake(t, "text", adapters.SessionOptions{})
	for i, want := range []string{"echo 1: hello", "echo 2: again"} {
		ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt(strings.Fields("hello again")[i]))
		if err != nil {
			t.Fatal(err)
		}
		evs := collect(t, ch, nil)
		text := find(evs, adapters.EventText)
		if text == nil || text.Text != want {
			t.Fatalf("turn %d text = %+v, want %q", i+1, text, want)
		}
		if n := strings.Count(eventTypes(evs), "text"); n != 1 {
			t.Errorf("text emitted %d times (partial + assistant duplicated?)", n)
		}
		if d := last(evs); d.Type != adapters.EventDone || d.StopReason != adapters.StopEndTurn {
			t.Errorf("last = %+v", d)
		}
	}
	if s.ID() != fakeSession {
		t.Errorf("ID = %q", s.ID())
	}
}

func eventTypes(evs []adapters.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, string(e.Type))
	}
	return strings.Join(s, ",")
}

func TestSession_PermissionRoundTrip(t *testing.T) {
	tests := []struct {
		kind       adapters.PermissionOptionKind
		wantStatus adapters.ToolStatus
		wantText   string
	}{
		{adapters.AllowOnce, adapters.StatusCompleted, `ran {"command":"echo hi \u003e f.txt"}`},
		{adapters.RejectOnce, adapters.StatusFailed, "denied: The user rejected this tool call."},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			_, s := startFake(t, "permission", adapters.SessionOptions{})
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("write f"))
			if err != nil {
				t.Fatal(err)
			}
			evs := collect(t, ch, func(p *adapters.PermissionRequest) { p.Respond(adapters.PermissionDecision{Kind: tt.kind}) })
			p := find(evs, adapters.EventPermission)
			if p == nil || p.Permission.Tool.ID != "toolu_p" || p.Permission.Tool.Kind != adapters.KindExecute || p.Raw != nil {
				t.Fatalf("permission event = %+v", p)
			}
			u := find(evs, adapters.EventToolUpdate)
			if u == nil || u.Tool.Status != tt.wantStatus || u.Tool.Content[0].Text != tt.wantText {
				t.Fatalf("tool update = %+v", u)
			}
		})
	}
}

// "Always" is remembered by hub's gate, scoped to the call the user saw,
// and never handed to claude as the rule claude suggested: `Bash(echo:*)`
// kept in the project's settings, or acceptEdits for the session after
// one edit, would let claude (this session, the next, another delegate)
// skip hub's gate and its deny rules.
func TestSession_AlwaysAllowHandsClaudeNoRule(t *testing.T) {
	for _, kind := range []adapters.PermissionOptionKind{adapters.AllowAlways, adapters.AllowOnce} {
		t.Run(string(kind), func(t *testing.T) {
			_, s := startFake(t, "permission", adapters.SessionOptions{})
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("write f"))
			if err != nil {
				t.Fatal(err)
			}
			evs := collect(t, ch, func(p *adapters.PermissionRequest) {
				p.Respond(adapters.PermissionDecision{Kind: kind})
			})
			u := find(evs, adapters.EventToolUpdate)
			if u == nil || u.Tool.Status != adapters.StatusCompleted {
				t.Fatalf("tool update = %+v", u)
			}
			if strings.Contains(u.Tool.Content[0].Text, " rules ") {
				t.Errorf("tool result %q: claude was handed its rules", u.Tool.Content[0].Text)
			}
		})
	}
}

func TestSession_CancelMidTool(t *testing.T) {
	for _, via := range []string{"Cancel", "context"} {
		t.Run(via, func(t *testing.T) {
			_, s := startFake(t, "cancel", adapters.SessionOptions{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("sleep"))
			if err != nil {
				t.Fatal(err)
			}
			for ev := range ch {
				if ev.Type == adapters.EventToolCall {
					break
				}
			}
			if via == "Cancel" {
				s.interrupt()
			} else {
				cancel()
			}
			evs := collect(t, ch, nil)
			if d := last(evs); d.StopReason != adapters.StopCancelled {
				t.Fatalf("last = %+v", d)
			}
			if find(evs, adapters.EventError) != nil {
				t.Errorf("cancel produced an error event: %s", eventTypes(evs))
			}
			if s.p.Exited() {
				t.Error("interrupt killed the process; it should keep the session")
			}
		})
	}
}

// A claude that ignores the interrupt does not hold the turn: it ends
// cancelled after the grace period (ErrCancelTimeout), and Close then
// stops the process.
func TestSession_HungCancelEndsAfterGrace(t *testing.T) {
	_, s := startFake(t, "hang", adapters.SessionOptions{CancelGrace: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	reason, err := s.Prompt(ctx, adapters.TextPrompt("hang"), func(ev adapters.Event) {
		if ev.Type == adapters.EventToolCall {
			once.Do(cancel)
		}
	})
	if reason != adapters.StopCancelled || !errors.Is(err, adapters.ErrCancelTimeout) {
		t.Fatalf("reason %q err %v", reason, err)
	}
	if s.p.Exited() {
		t.Fatal("the process ended before Close")
	}
	_ = s.Close()
	<-s.p.Done()
}

// A claude that cannot be interrupted is stopped, and its end reads as
// that wherever it is read, never as an output it closed (it did not).
func TestSession_UninterruptibleIsStoppedForTheCancel(t *testing.T) {
	_, s := startFake(t, "deaf", adapters.SessionOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reason, _ := s.Prompt(ctx, adapters.TextPrompt("go"), func(ev adapters.Event) {
		if ev.Type == adapters.EventToolCall {
			cancel()
		}
	})
	if reason != adapters.StopCancelled {
		t.Fatalf("reason %q", reason)
	}
	<-s.p.Done()
	const want = "claude did not stop on cancel and was stopped ("
	var te *adapters.TurnError
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("again"), func(adapters.Event) {}); !errors.As(err, &te) || !strings.HasPrefix(te.Info.Message, want) {
		t.Errorf("next prompt: %v, want %q…", err, want)
	}
	if x := s.Exit(); x == nil || !strings.HasPrefix(x.Message, want) {
		t.Errorf("Exit() = %+v, want %q…", x, want)
	}
}

// A prompt to a claude that already exited (whether hub's reader saw the
// end yet or the write meets a broken pipe) is a crash with its exit
// status and stderr, never the pipe's error.
func TestSession_PromptToAnExitedClaudeIsACrash(t *testing.T) {
	for i := range 20 {
		_, s := startFake(t, "exit-at-once", adapters.SessionOptions{})
		<-s.p.Done()
		_, err := s.Prompt(context.Background(), adapters.TextPrompt("go"), func(adapters.Event) {})
		var te *adapters.TurnError
		if !errors.As(err, &te) || te.Info.Code != adapters.CodeCrash || !strings.Contains(te.Info.Message, "exit code 3") ||
			!strings.Contains(te.Info.Detail, "boom: bad config") || !errors.Is(err, adapters.ErrClosed) {
			t.Fatalf("run %d: prompt to an exited claude: %v (%+v)", i, err, te)
		}
	}
}

// A claude gone before it answers initialize is told one way, with its
// exit status and stderr, whether hub met the broken pipe, the end of
// claude's output or its exit first.
func TestSession_GoneBeforeInitializeIsOneMessage(t *testing.T) {
	seen := map[string]int{}
	for i := range 50 {
		_, s := startFake(t, "gone", adapters.SessionOptions{})
		if i%2 == 1 { // asked once hub is done with the exit, too
			<-s.readDone
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := s.Surface(ctx)
		cancel()
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("surface of a gone claude: %v", err)
		}
		seen[err.Error()]++
	}
	for msg := range seen {
		if len(seen) > 1 || !strings.Contains(msg, "exit code 3") || strings.Count(msg, "boom: bad config") != 1 {
			t.Fatalf("messages = %v, want one, with the exit code and the stderr line once", seen)
		}
	}
}

func TestSession_CrashMidTurn(t *testing.T) {
	_, s := startFake(t, "crash", adapters.SessionOptions{})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("go"))
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, ch, nil)
	e := find(evs, adapters.EventError)
	if e == nil || !e.Error.Fatal || e.Error.Code != adapters.CodeCrash || !strings.Contains(e.Error.Detail, "something exploded") ||
		!strings.Contains(e.Error.Message, "claude exited unexpectedly (exit code 3): ") {
		t.Fatalf("error = %+v", e)
	}
	if last(evs).Type != adapters.EventDone {
		t.Errorf("last = %+v", last(evs))
	}
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("again"), func(adapters.Event) {}); !errors.Is(err, ErrExited) || !errors.Is(err, adapters.ErrClosed) {
		t.Errorf("prompt after crash: %v", err)
	}
	// A prompt that could not reach it is reported with its end.
	if x := s.Exit(); x == nil || x.Code != adapters.CodeCrash || !strings.Contains(x.Message, "exit code 3") || !strings.Contains(x.Detail, "something exploded") {
		t.Errorf("Exit() = %+v", x)
	}
}

// A claude that closes its output but keeps running ends the turn as a
// crash after one wait: hub stops it, and the crash tells how it ended
// and its stderr, as every later word about the session does.
func TestSession_ClosedOutputStillRunningIsStopped(t *testing.T) {
	_, s := startFake(t, "mute", adapters.SessionOptions{})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("go"))
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, ch, nil)
	if len(evs) < 3 || evs[len(evs)-3].Type != adapters.EventText || evs[len(evs)-2].Type != adapters.EventError || last(evs).Type != adapters.EventDone {
		t.Fatalf("events %s, want the text, then the crash and done", claudeTypes(evs))
	}
	if !s.p.Exited() {
		t.Fatal("claude still runs after its turn ended")
	}
	e := evs[len(evs)-2].Error
	if !e.Fatal || e.Code != adapters.CodeCrash || !strings.Contains(e.Message, "stopped") || !strings.HasSuffix(e.Message, ": Error: stdout lost") ||
		!strings.Contains(e.Detail, "stdout lost") {
		t.Errorf("crash = %+v", e)
	}
	if x := s.Exit(); x == nil || x.Code != adapters.CodeCrash || !strings.Contains(x.Detail, "stdout lost") || x.Message != e.Message {
		t.Errorf("Exit() = %+v, want the turn's %q", x, e.Message)
	}
	_, err = s.Prompt(context.Background(), adapters.TextPrompt("again"), func(adapters.Event) {})
	if te := (*adapters.TurnError)(nil); !errors.Is(err, ErrExited) || !errors.As(err, &te) || te.Info.Message != e.Message {
		t.Errorf("prompt after the stop: %v, want the turn's %q", err, e.Message)
	}
}

func TestAdapter_Args(t *testing.T) {
	argsFile := filepath.Join(t.TempDir(), "args.json")
	t.Setenv("HUB_FAKE_CLAUDE_ARGS", argsFile)
	_, s := startFake(t, "text", adapters.SessionOptions{ResumeID: "abc-123", Model: "opus", Mode: "plan",
		Instructions: "be brief", SystemPrompt: "you review code", OutputSchema: json.RawMessage(`{"type":"object"}`), MaxTurns: 4,
		MCPServers: []adapters.MCPServer{
			{Name: "fs", Type: "stdio", Command: "mcp-fs", Args: []string{"/tmp"}},
			{Name: "web", Type: "http", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X": "y"}}}})
	if s.ID() != "abc-123" {
		t.Errorf("ID before first turn = %q, want the resume id", s.ID())
	}
	collect(t, mustPrompt(t, s, "hi"), nil)
	var args []string
	b, err := os.ReadFile(argsFile)
	if err != nil || json.Unmarshal(b, &args) != nil {
		t.Fatalf("args: %v %s", err, b)
	}
	for _, pair := range [][2]string{{"--resume", "abc-123"}, {"--model", "opus"}, {"--permission-mode", "plan"},
		{"--append-system-prompt", "be brief"}, {"--input-format", "stream-json"}, {"--output-format", "stream-json"},
		{"--permission-prompt-tool", "stdio"}, {"--system-prompt", "you review code"},
		{"--json-schema", `{"type":"object"}`}, {"--max-turns", "4"}} {
		i := slices.Index(args, pair[0])
		if i < 0 || i+1 >= len(args) || args[i+1] != pair[1] {
			t.Errorf("args lack %s %s: %v", pair[0], pair[1], args)
		}
	}
	for _, f := range []string{"-p", "--verbose", "--include-partial-messages"} {
		if !slices.Contains(args, f) {
			t.Errorf("args lack %s", f)
		}
	}
	var mcp struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	i := slices.Index(args, "--mcp-config")
	if i < 0 || json.Unmarshal([]byte(args[i+1]), &mcp) != nil || mcp.MCPServers["fs"]["command"] != "mcp-fs" ||
		mcp.MCPServers["web"]["type"] != "http" || mcp.MCPServers["web"]["url"] != "http://127.0.0.1:1/mcp" {
		t.Errorf("mcp config = %v", args)
	}
}

// claude's Bash tool keeps no directory from one call to the next, since
// hub reads each call's paths from the session's directory: whatever the
// user's or the session's environment says.
func TestAdapter_BashKeepsNoDirectory(t *testing.T) {
	for _, env := range []map[string]string{nil, {keepCwd: "0"}, {keepCwd: ""}} {
		envFile := filepath.Join(t.TempDir(), "env")
		t.Setenv("HUB_FAKE_CLAUDE_ENV", envFile)
		t.Setenv(keepCwd, "false")
		_, s := startFake(t, "text", adapters.SessionOptions{Env: env})
		collect(t, mustPrompt(t, s, "hi"), nil)
		if b, err := os.ReadFile(envFile); err != nil || string(b) != "1" {
			t.Errorf("session env %v: claude saw %s=%q (%v), want 1", env, keepCwd, b, err)
		}
	}
}

func mustPrompt(t *testing.T, s *Session, text string) <-chan adapters.Event {
	t.Helper()
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt(text))
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestUserMessage_Content(t *testing.T) {
	file, _ := filepath.Abs(filepath.FromSlash("/repo/a b.go")) // C:\repo\a b.go on Windows
	b, err := userMessage([]adapters.Content{{Type: adapters.ContentText, Text: "look"},
		{Type: adapters.ContentImage, MimeType: "image/png", Data: "AAAA"},
		{Type: adapters.ContentResourceLink, URI: fileuri.FromPath(runtime.GOOS, file)},
		{Type: adapters.ContentResourceLink, URI: "https://example.com/x"}}, "u-1")
	if err != nil {
		t.Fatal(err)
	}
	mention, _ := json.Marshal("@" + file)
	want := `{"message":{"content":[{"text":"look","type":"text"},{"source":{"data":"AAAA","media_type":"image/png","type":"base64"},"type":"image"},{"text":` + string(mention) + `,"type":"text"},{"text":"@https://example.com/x","type":"text"}],"role":"user"},"parent_tool_use_id":null,"session_id":"","type":"user","uuid":"u-1"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if _, err := userMessage([]adapters.Content{{Type: adapters.ContentAudio}}, "u-2"); !errors.Is(err, adapters.ErrUnsupported) {
		t.Errorf("audio: %v", err)
	}
}

func TestSession_CloseLeavesNoProcess(t *testing.T) {
	_, s := startFake(t, "text", adapters.SessionOptions{})
	collect(t, mustPrompt(t, s, "hi"), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !s.p.Exited() {
		t.Error("process still running after Close")
	}
	_ = s.Close()
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("x"), func(adapters.Event) {}); err == nil {
		t.Error("prompt after Close succeeded")
	}
}
