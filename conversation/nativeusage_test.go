package conversation

import (
	"context"
	"math"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/mockllm"
)

// The native loop's turn is priced by the model it asked, though the
// front end names none (hub acp, delegates): its usage is summed over
// every model request, and the cost follows from the sum.
func TestRunTurn_NativeLoopUsageIsSummedAndPriced(t *testing.T) {
	u := &mockllm.OpenAIUsage{PromptTokens: 1000, CompletionTokens: 100}
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "glob", Args: `{"pattern":"*"}`}}, Usage: u},
		mockllm.OpenAITurn{Text: "done", Usage: u})
	defer srv.Close()
	cwd := t.TempDir()
	gate, err := NewGate(GateOptions{Cwd: cwd, Answerer: ApproveReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	p := openai.Profile{Name: "native", BaseURL: srv.URL, Model: "gpt-4o", Local: true, Stream: true}
	sess, err := openai.New(p, openai.Options{}).Start(context.Background(), adapters.SessionOptions{Cwd: cwd, Permission: gate.Ask})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	o, err := RunTurn(context.Background(), TurnSpec{Agent: "native", Session: sess, Prompt: adapters.TextPrompt("go"), Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	got, want := o.Digest.Usage, (2000*2.50+200*10.00)/1e6
	if got == nil || got.InputTokens != 2000 || got.OutputTokens != 200 || got.CostUSD == nil || math.Abs(*got.CostUSD-want) > 1e-12 {
		t.Fatalf("usage %+v (cost %v), want 2000 in, 200 out, $%g", got, got.CostUSD, want)
	}
}
