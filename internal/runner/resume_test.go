package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/mockllm"
)

// --continue (and --resume last) resume the agent's latest run in the
// directory: the native loop's second request holds the first turn.
func TestRun_ContinueCarriesTheEarlierTurn(t *testing.T) {
	for _, how := range []string{"continue", "resume last"} {
		t.Run(how, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "the answer is 42"}, mockllm.OpenAITurn{Text: "still 42"})
			defer srv.Close()
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "local", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true},
				openai.Options{TranscriptDir: t.TempDir()}))
			cwd, runs := t.TempDir(), t.TempDir()
			run := func(prompt string, mod func(*Options)) Summary {
				var errb bytes.Buffer
				o := Options{Registry: reg, Agent: "local", Cwd: cwd, Prompt: prompt, TranscriptDir: runs, Stderr: &errb,
					Timeout: 20 * time.Second, Grace: 2 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()}
				mod(&o)
				s := Run(context.Background(), o)
				if s.ExitCode != conversation.ExitOK {
					t.Fatalf("exit %d: %s\n%s", s.ExitCode, s.Error, errb.String())
				}
				return s
			}
			first := run("what is the answer?", func(*Options) {})
			second := run(ContinuePrompt, func(o *Options) {
				if how == "continue" {
					o.Continue = true
				} else {
					o.ResumeID = ResumeLast
				}
			})
			if second.AgentSessionID != first.AgentSessionID {
				t.Fatalf("continued session %q, want %q", second.AgentSessionID, first.AgentSessionID)
			}
			var got []string
			for _, m := range srv.Requests()[1].Messages[1:] {
				got = append(got, mockllm.MessageText(m))
			}
			if strings.Join(got, "|") != "what is the answer?|the answer is 42|continue" {
				t.Fatalf("continued request: %q", got)
			}
		})
	}
}

func TestRun_ContinueWithoutAnEarlierRunIsAUsageError(t *testing.T) {
	runs := t.TempDir()
	// A run of another agent, and one of this agent elsewhere, do not count.
	for _, c := range []struct{ agent, cwd string }{{"other", ""}, {"fake", t.TempDir()}} {
		a := &fakeAdapter{name: c.agent, sessID: "s-" + c.agent, caps: adapters.Capabilities{Resume: true}, script: steps(text("x"), done(adapters.StopEndTurn))}
		runFake(t, context.Background(), a, func(o *Options) {
			o.TranscriptDir = runs
			if c.cwd != "" {
				o.Cwd = c.cwd
			}
		})
	}
	a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Resume: true}, script: steps(text("x"), done(adapters.StopEndTurn))}
	s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.TranscriptDir, o.Continue = runs, true })
	if s.ExitCode != conversation.ExitUsage || !strings.Contains(s.Error, "no earlier run of fake") {
		t.Fatalf("exit %d: %s", s.ExitCode, s.Error)
	}
}

// Two runs resuming one session at once: the second fails with exit 2 and
// one line instead of interleaving; the lock goes with the first run.
func TestRun_ConcurrentResumeOfOneSessionFails(t *testing.T) {
	runs := t.TempDir()
	inTurn, release := make(chan struct{}), make(chan struct{})
	first := &fakeAdapter{name: "fake", sessID: "s-1", caps: adapters.Capabilities{Resume: true},
		script: func(_ context.Context, _ <-chan struct{}, out chan<- adapters.Event) {
			close(inTurn)
			<-release
			out <- text("first")
			out <- done(adapters.StopEndTurn)
		}}
	resume := func(o *Options) { o.TranscriptDir, o.ResumeID = runs, "s-1" }
	firstDone := make(chan Summary, 1)
	go func() {
		s, _, _ := runFake(t, context.Background(), first, resume)
		firstDone <- s
	}()
	<-inTurn
	second := &fakeAdapter{name: "fake", sessID: "s-1", caps: adapters.Capabilities{Resume: true}, script: steps(text("second"), done(adapters.StopEndTurn))}
	s, _, errOut := runFake(t, context.Background(), second, resume)
	if s.ExitCode != conversation.ExitUsage || !strings.Contains(s.Error, "session s-1 is in use") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("second resume: exit %d error %q stderr %q", s.ExitCode, s.Error, errOut)
	}
	if second.opts.ResumeID != "" {
		t.Fatal("the second run started the agent")
	}
	close(release)
	if s := <-firstDone; s.ExitCode != conversation.ExitOK {
		t.Fatalf("first resume: exit %d %s", s.ExitCode, s.Error)
	}
	third := &fakeAdapter{name: "fake", sessID: "s-1", caps: adapters.Capabilities{Resume: true}, script: steps(text("third"), done(adapters.StopEndTurn))}
	if s, _, _ := runFake(t, context.Background(), third, resume); s.ExitCode != conversation.ExitOK {
		t.Fatalf("resume after the first ended: exit %d %s", s.ExitCode, s.Error)
	}
}

// Session ids that cannot name a file still resume, and still lock.
func TestRun_ResumeIDsOfAnyShapeLock(t *testing.T) {
	for _, id := range []string{"urn:acp/session:1", "../../etc/passwd", strings.Repeat("x", 300)} {
		runs := t.TempDir()
		o := Options{ResumeID: id, TranscriptDir: runs}
		release, err := o.holdSession()
		if err != nil {
			t.Fatalf("%q: %v", id, err)
		}
		if _, err := o.holdSession(); err == nil {
			t.Fatalf("%q: locked twice", id)
		}
		release()
	}
}
