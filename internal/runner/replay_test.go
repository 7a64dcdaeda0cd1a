package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
)

// seeing is an adapter whose sessions close seen once they emitted a text.
type seeing struct {
	adapters.Adapter
	once sync.Once
	seen chan time.Time
}

type seeingSession struct {
	adapters.Session
	a *seeing
}

func (a *seeing) Start(ctx context.Context, opts adapters.SessionOptions) (adapters.Session, error) {
	s, err := a.Adapter.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	return seeingSession{s, a}, nil
}

func (s seeingSession) Prompt(ctx context.Context, p []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	return s.Session.Prompt(ctx, p, func(ev adapters.Event) {
		emit(ev)
		if ev.Type == adapters.EventText {
			s.a.once.Do(func() { close(s.a.seen) })
		}
	})
}

func TestRun_Replay(t *testing.T) {
	cases := []struct {
		script  string
		format  Format
		approve conversation.Approve
		timeout time.Duration
		cancel  bool
		want    int
		out     string
	}{
		{script: "ok", format: FormatText, want: conversation.ExitOK, out: "All good.\n"},
		{script: "ok", format: FormatJSONL, want: conversation.ExitOK, out: `"agentSessionId":"r-1"`},
		{script: "crash", format: FormatText, want: conversation.ExitAgentError, out: "Working on it\n"},
		{script: "crash", format: FormatJSONL, want: conversation.ExitAgentError, out: `"error":"agent crashed"`},
		{script: "denied", format: FormatText, approve: conversation.ApproveReadOnly, want: conversation.ExitDenied, out: "skipped\n"},
		{script: "denied", format: FormatJSONL, approve: conversation.ApproveAll, want: conversation.ExitOK, out: `"text":"removed"`},
		{script: "auth", format: FormatText, want: conversation.ExitNotAuthenticated},
		{script: "auth", format: FormatJSONL, want: conversation.ExitNotAuthenticated, out: `"exitCode":4`},
		{script: "hang", format: FormatText, timeout: time.Hour, want: conversation.ExitTimeout, out: "thinking\n"},
		{script: "hang", format: FormatJSONL, timeout: time.Hour, want: conversation.ExitTimeout, out: `"stopReason":"cancelled"`},
		{script: "hang", format: FormatText, cancel: true, want: conversation.ExitInterrupted, out: "thinking\n"},
		{script: "hang", format: FormatJSONL, cancel: true, want: conversation.ExitInterrupted, out: `"exitCode":130`},
	}
	for _, c := range cases {
		t.Run(c.script+"/"+string(c.format), func(t *testing.T) {
			// The hang rows time out or are interrupted once the agent's
			// text is out, not after some wall time: on a slow machine the
			// run could end before the prompt was sent.
			thinking := &seeing{Adapter: replay.New(filepath.Join("testdata", "replay", c.script+".jsonl")), seen: make(chan time.Time)}
			reg := adapters.NewRegistry()
			reg.Register(thinking)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out, errb bytes.Buffer
			if c.cancel {
				go func() { <-thinking.seen; cancel() }()
			}
			after := func(d time.Duration) <-chan time.Time {
				if c.timeout > 0 && d == c.timeout {
					return thinking.seen
				}
				return time.After(d)
			}
			approve := c.approve
			if approve == "" {
				approve = conversation.ApproveReadOnly
			}
			s := Run(ctx, Options{Registry: reg, Agent: replay.Name, Cwd: t.TempDir(), Prompt: "go", Format: c.format, Approve: approve,
				Timeout: c.timeout, After: after, Stdout: &out, Stderr: &errb, Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
			if s.ExitCode != c.want {
				t.Fatalf("exit %d, want %d (%s)\nstdout:\n%s\nstderr:\n%s", s.ExitCode, c.want, s.Error, out.String(), errb.String())
			}
			if c.format == FormatText && c.out != "" && out.String() != c.out {
				t.Errorf("stdout %q, want %q", out.String(), c.out)
			}
			if c.format == FormatJSONL {
				lines := strings.Split(strings.TrimSpace(out.String()), "\n")
				if !strings.HasPrefix(lines[len(lines)-1], `{"v":1,"type":"summary"`) || !strings.Contains(out.String(), c.out) {
					t.Errorf("jsonl lacks %q or summary:\n%s", c.out, out.String())
				}
			}
		})
	}
}
