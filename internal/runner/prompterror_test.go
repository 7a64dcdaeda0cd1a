package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
)

// refusing is an agent whose sessions fail every prompt with err, and
// whose process, when exit is set, is gone with that end.
type refusing struct {
	err  error
	exit *adapters.ErrorInfo
}

func (a refusing) Name() string                        { return "claude" }
func (a refusing) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (a refusing) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	return a, nil
}
func (a refusing) ID() string                { return "s1" }
func (a refusing) Close() error              { return nil }
func (a refusing) Exit() *adapters.ErrorInfo { return a.exit }
func (a refusing) Prompt(context.Context, []adapters.Content, func(adapters.Event)) (adapters.StopReason, error) {
	return "", a.err
}

// A prompt the agent never took is one line that names the agent once,
// with the exit status and stderr line of a process that is gone.
func TestRun_PromptErrorNamesTheAgentOnce(t *testing.T) {
	pipe := fmt.Errorf("%w: write |1: broken pipe", adapters.ErrClosed)
	tests := []struct {
		name string
		a    refusing
		want string
	}{
		{"process gone", refusing{pipe, &adapters.ErrorInfo{Code: adapters.CodeCrash, Message: "claude exited unexpectedly (exit code 1): quota exceeded"}},
			"claude exited unexpectedly (exit code 1): quota exceeded"},
		{"the agent's own words", refusing{err: errors.New("claude: session closed")}, "claude: session closed"},
		{"its program named", refusing{err: errors.New("claude process exited")}, "claude process exited"},
		{"no name", refusing{err: errors.New("json-rpc error -32603: boom")}, "prompt claude: json-rpc error -32603: boom"},
		{"another name", refusing{err: errors.New("claudette: boom")}, "prompt claude: claudette: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := adapters.NewRegistry()
			reg.Register(tt.a)
			var out, errb bytes.Buffer
			s := Run(context.Background(), Options{Registry: reg, Agent: "claude", Cwd: t.TempDir(), Prompt: "go", Stdout: &out, Stderr: &errb,
				Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
			if s.Error != tt.want {
				t.Fatalf("error %q, want %q", s.Error, tt.want)
			}
		})
	}
}
