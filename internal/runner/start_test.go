package runner

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// An interrupt (the context or a signal) or the timeout while the agent
// starts ends the run with its own exit code, prompts nothing, and closes
// the agent session the abandoned start brings back.
func TestRun_StopDuringStartClosesWhatTheStartBringsBack(t *testing.T) {
	for _, c := range []struct {
		via  string
		want int
	}{{"context", conversation.ExitInterrupted}, {"signal", conversation.ExitInterrupted}, {"timeout", conversation.ExitTimeout}} {
		t.Run(c.via, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sigs, started := make(chan os.Signal, 1), make(chan struct{})
			a := &fakeAdapter{name: "fake", hold: true, started: started, script: steps(text("never"), done(adapters.StopEndTurn))}
			go func() {
				<-started
				switch c.via {
				case "context":
					cancel()
				case "signal":
					sigs <- os.Interrupt
				}
			}()
			stopped := false
			s, out, _ := runFake(t, ctx, a, func(o *Options) {
				o.Signals, o.Grace, o.StopAll = sigs, 10*time.Second, func() { stopped = true }
				if c.via == "timeout" {
					o.Timeout = 20 * time.Millisecond
				}
			})
			a.mu.Lock()
			defer a.mu.Unlock()
			if s.ExitCode != c.want || out != "" || len(a.prompts) != 0 || !a.closed || !stopped {
				t.Fatalf("exit %d (want %d) stdout %q prompts %d closed %v stopAll %v", s.ExitCode, c.want, out, len(a.prompts), a.closed, stopped)
			}
		})
	}
}

// A signal reaches the agent that answers after fallbacks: the attempts
// before it leave nothing reading the run's signals (each had taken them
// in a goroutine of its own, which kept most signals from the last).
func TestRun_SignalAfterFallbacksInterruptsTheLastAgent(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	last := &fakeAdapter{name: "last", script: func(_ context.Context, cancelled <-chan struct{}, out chan<- adapters.Event) {
		out <- text("half")
		sigs <- os.Interrupt
		<-cancelled
		out <- done(adapters.StopCancelled)
	}}
	s, out, _ := runFake(t, context.Background(), last, func(o *Options) {
		for _, n := range []string{"a", "b", "c", "d"} {
			o.Registry.Register(&fakeAdapter{name: n, startErr: adapters.ErrNotInstalled})
		}
		o.Agent, o.Fallback, o.Signals, o.Timeout = "a", []string{"b", "c", "d", "last"}, sigs, 10*time.Second
	})
	if s.ExitCode != conversation.ExitInterrupted || s.Agent != "last" || out != "half\n" {
		t.Fatalf("exit %d (want 130) agent %s stdout %q", s.ExitCode, s.Agent, out)
	}
}

// A --resume the agent cannot do fails the run: it does not start the
// agent afresh, which would answer a CI script without the session it
// named.
func TestRun_FailedResumeFailsTheRun(t *testing.T) {
	a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Resume: true}, startErr: errors.New("no conversation found with session ID abc")}
	s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.ResumeID = "abc" })
	a.mu.Lock()
	defer a.mu.Unlock()
	if s.ExitCode != conversation.ExitAgentError || a.starts != 1 || !strings.Contains(s.Error, "no conversation found") {
		t.Fatalf("exit %d error %q after %d starts: want exit 1 naming the failed resume after one start", s.ExitCode, s.Error, a.starts)
	}
}
