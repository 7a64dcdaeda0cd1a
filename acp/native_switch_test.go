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

// Two native providers on the mock, switched mid-session: the second's
// first request holds the first's question and answer.
func TestSwitchAgent_NativeProvidersCarryTheConversation(t *testing.T) {
	a := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "It is 42."})
	b := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "Doubled: 84."})
	defer a.Close()
	defer b.Close()
	reg := adapters.NewRegistry()
	for name, srv := range map[string]*mockllm.OpenAIServer{"native-a": a, "native-b": b} {
		reg.Register(openai.New(openai.Profile{Name: name, BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
			openai.Options{IdleTimeout: 10 * time.Second}))
	}
	c := startClient(t, Options{Registry: reg, DefaultAgent: "native-a", Logger: zerolog.Nop(), StateDir: t.TempDir(), CancelGrace: time.Second})
	sid, _ := c.start(t)
	c.prompt(sid, "what is six times seven?")
	switchTo(c, sid, "native-b")
	c.prompt(sid, "and doubled?")
	reqs := b.Requests()
	if len(reqs) != 1 {
		t.Fatalf("native-b got %d requests", len(reqs))
	}
	var all []string
	for _, m := range reqs[0].Messages {
		all = append(all, mockllm.MessageText(m))
	}
	joined := strings.Join(all, "\n")
	if !strings.Contains(joined, "what is six times seven?") || !strings.Contains(joined, "It is 42.") || !strings.HasSuffix(joined, "and doubled?") {
		t.Fatalf("native-b's first request lacks the earlier question and answer:\n%s", joined)
	}
}

// A native session loaded after hub restarts continues the model's own
// history from the session's transcript: the next request holds the
// earlier turn as messages, not as a briefing.
func TestLoad_NativeSessionResumesItsHistory(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "It is 42."}, mockllm.OpenAITurn{Text: "84."})
	defer srv.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second, TranscriptDir: t.TempDir()}))
	state := t.TempDir()
	c := startClient(t, Options{Registry: reg, DefaultAgent: "native", Logger: zerolog.Nop(), StateDir: state, CancelGrace: time.Second})
	sid, cwd := c.start(t)
	c.prompt(sid, "what is six times seven?")
	c.close()

	c2 := startClient(t, Options{Registry: reg, DefaultAgent: "native", Logger: zerolog.Nop(), StateDir: state, CancelGrace: time.Second})
	c2.init(schema.ClientCapabilities{})
	c2.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
	c2.prompt(sid, "and doubled?")
	var got []string
	for _, m := range srv.Requests()[1].Messages[1:] {
		got = append(got, m["role"].(string)+": "+mockllm.MessageText(m))
	}
	if strings.Join(got, "|") != "user: what is six times seven?|assistant: It is 42.|user: and doubled?" {
		t.Fatalf("request after load: %q", got)
	}
}
