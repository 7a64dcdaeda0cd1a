package conversation

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mockllm"
)

// The native loop's question after the same call three times in a row is
// put to whoever answers as one that must be asked, whatever allows the
// call (an allow rule, an earlier "always allow", --approve all), so the
// editor's user sees it; where nobody can answer (hub
// run's --approve), the repetition stops and no refusal is counted (no
// refused decision: denied[] stays empty, the exit code is not 6).
func TestGate_DoomLoopQuestionIsAskedWhateverAllowsTheCall(t *testing.T) {
	call := func(name, args string) mockllm.OpenAITurn {
		return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: name, Args: args}}}
	}
	write, glob := call("write_file", `{"path":"a.txt","content":"x"}`), call("glob", `{"pattern":"*.txt"}`)
	allowWrite := config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "write_file", Decision: "allow"}}}
	tests := []struct {
		name    string
		rules   config.PermissionsConfig
		turn    mockllm.OpenAITurn
		answer  Answerer
		user    adapters.PermissionOptionKind // how the user answers the call itself ("": nobody is asked)
		stopped string                        // what the model reads
	}{
		{name: "allow rule, the user", rules: allowWrite, turn: write, user: adapters.AllowOnce, stopped: "Stopped by the user"},
		{name: "always allow, the user", turn: write, user: adapters.AllowAlways, stopped: "Stopped by the user"},
		{name: "--approve all", turn: write, answer: ApproveAll, stopped: "Stopped (nobody can be asked"},
		{name: "allow rule, --approve none", rules: allowWrite, turn: write, answer: ApproveNone, stopped: "Stopped (nobody can be asked"},
		{name: "a read, --approve none", turn: glob, answer: ApproveNone, stopped: "Stopped (nobody can be asked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var repeated, refused int
			answer := tt.answer
			if answer == nil {
				answer = AnswerFunc(func(_ context.Context, q Question) Reply {
					o, _ := q.Request.OptionFor(tt.user)
					if q.Request.Repeated {
						o, _ = q.Request.OptionFor(adapters.RejectOnce)
					}
					return Reply{Decision: adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind}, By: ByUser}
				})
			}
			counted := AnswerFunc(func(ctx context.Context, q Question) Reply {
				if q.Request.Repeated && q.Must {
					mu.Lock()
					repeated++
					mu.Unlock()
				}
				return answer.Answer(ctx, q)
			})
			srv := mockllm.NewOpenAIServer(tt.turn, tt.turn, tt.turn, mockllm.OpenAITurn{Text: "ok"})
			defer srv.Close()
			cwd := t.TempDir()
			gate, err := NewGate(GateOptions{Rules: tt.rules, Cwd: cwd, Answerer: counted})
			if err != nil {
				t.Fatal(err)
			}
			p := openai.Profile{Name: "test", BaseURL: srv.URL, Model: "m", Local: true, Stream: true}
			sess, err := openai.New(p, openai.Options{}).Start(context.Background(), adapters.SessionOptions{Cwd: cwd, Permission: gate.Ask})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			ran := 0
			_, err = RunTurn(context.Background(), TurnSpec{Agent: "test", Session: sess, Prompt: adapters.TextPrompt("go"), Gate: gate, Emit: func(ev adapters.Event) {
				switch {
				case ev.Type == adapters.EventToolUpdate && ev.Tool.Status == adapters.StatusCompleted:
					ran++
				case ev.Type == adapters.EventDecision && !ev.Decision.Allowed && ev.Decision.By != ByUser:
					mu.Lock()
					refused++
					mu.Unlock()
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d model requests, want 4", len(reqs))
			}
			msgs := reqs[3].Messages
			if got := mockllm.MessageText(msgs[len(msgs)-1]); ran != 2 || !strings.HasPrefix(got, tt.stopped) {
				t.Errorf("the call ran %d times, the model read %q; want 2 and %q", ran, got, tt.stopped)
			}
			mu.Lock()
			defer mu.Unlock()
			if repeated != 1 || refused != 0 {
				t.Errorf("the repetition was put as a must-ask question %d times (want 1), %d refusals counted (want none)", repeated, refused)
			}
		})
	}
}
