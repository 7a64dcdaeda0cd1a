package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
)

// The agent starts while the prompt is still being read from stdin.
func TestRun_AgentStartsWhileThePromptIsRead(t *testing.T) {
	tests := []struct {
		name     string
		readErr  error
		wantCode int
	}{
		{name: "prompt read", wantCode: ExitOK},
		{name: "prompt read fails", readErr: errors.New("stdin was empty"), wantCode: ExitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true}, started: started,
				script: steps(text("answer"), done(adapters.StopEndTurn))}
			s, _, _ := runFake(t, context.Background(), a, func(o *Options) {
				o.Prompt = ""
				o.ReadPrompt = func() (string, error) {
					select {
					case <-started:
					case <-time.After(time.Minute): // a hang guard, not a timing
						return "", errors.New("the agent was not started before the prompt was read")
					}
					return "from stdin", tc.readErr
				}
			})
			if s.ExitCode != tc.wantCode {
				t.Fatalf("exit %d (%s), want %d", s.ExitCode, s.Error, tc.wantCode)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if tc.readErr == nil && (len(a.prompt) != 1 || a.prompt[0].Text != "from stdin") {
				t.Errorf("prompt %+v, want the text read from stdin", a.prompt)
			}
			if tc.readErr != nil && !a.closed {
				t.Error("the started agent was left running after the prompt could not be read")
			}
		})
	}
}

// --approve all does not lift the hard deny list.
func TestRun_HardDenyBeatsApproveAll(t *testing.T) {
	tool := adapters.ToolCall{ID: "rm1", Title: "rm -rf ~", Kind: adapters.KindExecute, RawInput: []byte(`{"command":"bash -lc 'rm -rf ~'"}`)}
	ev := adapters.Event{Type: adapters.EventPermission, Permission: adapters.NewPermissionRequest(tool, nil)}
	a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true}, script: steps(ev, done(adapters.StopEndTurn))}
	s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.Approve = ApproveAll })
	if s.ExitCode != ExitDenied || len(s.Denied) != 1 || s.Denied[0].Reason == "--approve all" {
		t.Fatalf("exit %d, denied %+v; want exit 6 with the deny list's reason", s.ExitCode, s.Denied)
	}
}
