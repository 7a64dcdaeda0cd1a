package acp

import (
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/mockllm"
)

// The handover briefing lists the files the earlier agent changed in the
// workspace, also one no tool call named (a shell command's).
func TestSwitchAgent_BriefingListsShellWrittenFiles(t *testing.T) {
	dir := compareRepo(t)
	first, second := &forgetful{}, &forgetful{instructions: true}
	reg := adapters.NewRegistry()
	reg.Register(first)
	reg.Register(renamed{second, "second"})
	c := newClient(t, "", func(o *Options) { o.Registry, o.DefaultAgent = reg, "forgetful" })
	c.init(schema.ClientCapabilities{})
	sid := c.newSession(dir)
	c.prompt(sid, "append to README")
	switchTo(c, sid, "second")
	c.prompt(sid, "go on")
	second.mu.Lock()
	defer second.mu.Unlock()
	if len(second.instr) != 1 || !strings.Contains(second.instr[0], "## Files changed so far\n- README") {
		t.Fatalf("briefing lacks README:\n%s", second.instr)
	}
}

// A native turn the model cut short answers the prompt with its stop
// reason: finish_reason length is max_tokens, content_filter refusal.
func TestPrompt_CutShortTurnsAnswerTheirStopReason(t *testing.T) {
	for finish, want := range map[string]string{"length": schema.StopMaxTokens, "content_filter": schema.StopRefusal, "stop": schema.StopEndTurn} {
		t.Run(finish, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "partial", FinishReason: finish})
			defer srv.Close()
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
				openai.Options{IdleTimeout: 10 * time.Second}))
			c := startClient(t, Options{Registry: reg, DefaultAgent: "native", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Second})
			sid, _ := c.start(t)
			if got := c.prompt(sid, "hi"); got != want {
				t.Fatalf("stop reason %q, want %q", got, want)
			}
		})
	}
}
