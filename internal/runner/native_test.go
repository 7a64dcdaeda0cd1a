package runner

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/mockllm"
)

func TestRun_NativeLoopMock(t *testing.T) {
	cases := []struct {
		name string
		turn mockllm.OpenAITurn
		want int
		out  string
	}{
		{name: "completed", turn: mockllm.OpenAITurn{Text: "native answer"}, want: ExitOK, out: "native answer\n"},
		{name: "auth", turn: mockllm.OpenAITurn{Status: 401}, want: ExitNotAuthenticated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(c.turn)
			defer srv.Close()
			reg := adapters.NewRegistry()
			retries := 0
			reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true},
				openai.Options{MaxRetries: &retries}))
			var out, errb bytes.Buffer
			s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: t.TempDir(), Prompt: "hi",
				Stdout: &out, Stderr: &errb, Timeout: 20 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
			if s.ExitCode != c.want {
				t.Fatalf("exit %d want %d: %s\n%s", s.ExitCode, c.want, s.Error, errb.String())
			}
			if c.out != "" && out.String() != c.out {
				t.Fatalf("stdout %q", out.String())
			}
		})
	}
}
