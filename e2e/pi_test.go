//go:build e2e && unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/pi"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

// piAgentDir writes a PI_CODING_AGENT_DIR whose models.json points pi's
// "mock" provider at the chat-completions mock (clis.md §5.6).
func piAgentDir(t *testing.T, mock *mockllm.OpenAIServer) string {
	t.Helper()
	dir := t.TempDir()
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"MOCK_API_KEY",`+
		`"compat":{"supportsDeveloperRole":false},"models":[{"id":"mock-model","name":"Mock Model","reasoning":true}]}}}`, mock.URL)
	if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func piHubCfg(bin, agentDir string) string {
	return fmt.Sprintf("default_agent = \"pi\"\n[agents.pi]\ncommand = [%q]\nmodel = \"mock-model\"\n"+
		"env = { PI_CODING_AGENT_DIR = %q, PI_OFFLINE = \"1\" }\noptions = { provider = \"mock\" }\n", bin, agentDir)
}

func piHasUpdate(updates []map[string]any, pred func(map[string]any) bool) bool {
	for _, u := range updates {
		if pred(u) {
			return true
		}
	}
	return false
}

func piAgentText(updates []map[string]any) string {
	var b strings.Builder
	for _, u := range updates {
		if u["sessionUpdate"] != "agent_message_chunk" {
			continue
		}
		if c, ok := u["content"].(map[string]any); ok {
			s, _ := c["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// piSleepAlive reports whether a process running the marker command exists.
func piSleepAlive(marker string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
			return true
		}
	}
	return false
}

func TestPi_ACPSession(t *testing.T) {
	bin := e2eCLI(t, "pi", "pi")
	mock := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{Text: "Hello from mock."},
		mockllm.OpenAITurn{Text: "Writing.", ToolCalls: []mockllm.OpenAIToolCall{
			{Name: "bash", Args: `{"command":"echo made-by-pi > out.txt && echo wrote"}`}}},
		mockllm.OpenAITurn{Text: "Wrote it."},
		mockllm.OpenAITurn{Text: "Sleeping.", ToolCalls: []mockllm.OpenAIToolCall{
			{Name: "bash", Args: `{"command":"sleep 3017"}`}}},
		mockllm.OpenAITurn{Text: "Continued the same session."},
	)
	defer mock.Close()
	h := startHub(t, piHubCfg(bin, piAgentDir(t, mock)), nil)
	h.initialize(map[string]any{})
	cwd := t.TempDir()
	sid := h.newSession(cwd)

	stop, updates, err := h.prompt(sid, "first prompt marker")
	if err != nil || stop != "end_turn" || !strings.Contains(piAgentText(updates), "Hello from mock.") {
		t.Fatalf("text turn: stop=%q err=%v text=%q\nhub stderr:\n%s", stop, err, piAgentText(updates), h.stderr())
	}

	stop, updates, err = h.prompt(sid, "write the file")
	if err != nil || stop != "end_turn" {
		t.Fatalf("tool turn: stop=%q err=%v", stop, err)
	}
	if got, _ := os.ReadFile(filepath.Join(cwd, "out.txt")); string(got) != "made-by-pi\n" {
		t.Errorf("out.txt = %q, want the bash tool's output", got)
	}
	if !piHasUpdate(updates, func(u map[string]any) bool { return u["sessionUpdate"] == "tool_call" && u["kind"] == "execute" }) ||
		!piHasUpdate(updates, func(u map[string]any) bool {
			return u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed"
		}) {
		t.Errorf("tool turn lacks an execute tool_call and its completed update: %v", updates)
	}

	res := h.promptAsync(sid, "sleep please")
	if _, ok := h.waitUpdate(func(u map[string]any) bool {
		return u["sessionUpdate"] == "tool_call_update" && u["status"] == "in_progress"
	}, 2*time.Minute); !ok {
		t.Fatal("the sleeping tool never started")
	}
	time.Sleep(300 * time.Millisecond)
	h.cancel(sid)
	var r promptResult
	select {
	case r = <-res:
	case <-time.After(time.Minute):
		t.Fatalf("cancelled prompt never answered\nhub stderr:\n%s", h.stderr())
	}
	if r.Err != nil || r.StopReason != "cancelled" {
		t.Fatalf("cancelled turn: stop=%q err=%v", r.StopReason, r.Err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for piSleepAlive("sleep 3017") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if piSleepAlive("sleep 3017") {
		t.Error("the aborted bash tool (sleep 3017) is still running")
	}

	stop, updates, err = h.prompt(sid, "continue")
	if err != nil || stop != "end_turn" || !strings.Contains(piAgentText(updates), "Continued the same session.") {
		t.Fatalf("second prompt after cancel: stop=%q err=%v", stop, err)
	}
	var history []string
	for _, m := range lastMessages(mock) {
		history = append(history, mockllm.MessageText(m))
	}
	if !strings.Contains(strings.Join(history, "\n"), "first prompt marker") {
		t.Errorf("last request does not carry the first prompt; pi did not continue its session: %q", history)
	}
	if len(h.permissionRequests()) != 0 {
		t.Errorf("pi has no permission hook, yet permission requests arrived")
	}
	h.close()
}

// TestPi_DirectAdapter drives the adapter in-process against real pi: text,
// abort mid-tool, then resume of the same pi session in a new process.
func TestPi_DirectAdapter(t *testing.T) {
	bin := e2eCLI(t, "pi", "pi")
	mock := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{Text: "Hello direct."},
		mockllm.OpenAITurn{Text: "Sleeping.", ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"sleep 3018"}`}}},
		mockllm.OpenAITurn{Text: "Resumed."},
	)
	defer mock.Close()
	t.Setenv("HOME", t.TempDir())
	opts := pi.Options{Argv: []string{bin}, Provider: "mock", Model: "mock-model", Log: zerolog.New(os.Stderr),
		Env: map[string]string{"PI_CODING_AGENT_DIR": piAgentDir(t, mock), "PI_OFFLINE": "1"}}
	a := pi.NewWithOptions(opts)
	cwd := t.TempDir()
	ctx := context.Background()
	s, err := a.Start(ctx, adapters.SessionOptions{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	const marker = "direct-resume-marker-7c1"
	evs := piDrain(t, s, marker, nil)
	if evs[0].Type != adapters.EventSessionInfo || evs[0].Session.AgentSessionID == "" || evs[len(evs)-1].StopReason != adapters.StopEndTurn {
		t.Fatalf("text turn events: %+v", evs)
	}
	evs = piDrain(t, s, "sleep", func(ev adapters.Event) bool {
		return ev.Type == adapters.EventToolUpdate && ev.Tool.Status == adapters.StatusInProgress
	})
	if evs[len(evs)-1].StopReason != adapters.StopCancelled {
		t.Fatalf("aborted turn ended with %+v", evs[len(evs)-1])
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := a.Start(ctx, adapters.SessionOptions{Cwd: cwd, ResumeID: id})
	if err != nil {
		t.Fatalf("resume %s: %v", id, err)
	}
	defer s2.Close()
	if s2.ID() != id {
		t.Errorf("resumed session id = %q, want %q", s2.ID(), id)
	}
	piDrain(t, s2, "again", nil)
	var history []string
	for _, m := range lastMessages(mock) {
		history = append(history, mockllm.MessageText(m))
	}
	if !strings.Contains(strings.Join(history, "\n"), marker) {
		t.Errorf("resumed request lacks the earlier prompt: %q", history)
	}
}

// piDrain prompts and collects the turn, cancelling once cancelWhen matches.
func piDrain(t *testing.T, s adapters.Session, text string, cancelWhen func(adapters.Event) bool) []adapters.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt(text))
	if err != nil {
		t.Fatal(err)
	}
	var evs []adapters.Event
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs
			}
			evs = append(evs, ev)
			if cancelWhen != nil && cancelWhen(ev) {
				cancel()
			}
		case <-timeout:
			t.Fatalf("turn %q did not end: %+v", text, evs)
		}
	}
}

// TestPi_RateLimitRetried: pi retries a 429 on its own after ending the
// failed run; the retried answer must reach the client in the same turn.
// The OpenAI SDK inside pi retries twice itself, so the third 429 is pi's.
func TestPi_RateLimitRetried(t *testing.T) {
	bin := e2eCLI(t, "pi", "pi")
	limited := mockllm.OpenAITurn{Status: 429, RetryAfter: "0",
		ErrorBody: `{"error":{"message":"Rate limit reached for mock-model.","type":"rate_limit_error"}}`}
	mock := mockllm.NewOpenAIServer(limited, limited, limited, mockllm.OpenAITurn{Text: "Answer after the retry."})
	defer mock.Close()
	h := startHub(t, piHubCfg(bin, piAgentDir(t, mock)), nil)
	h.initialize(map[string]any{})
	sid := h.newSession(t.TempDir())
	stop, updates, err := h.prompt(sid, "say hi RETRY")
	if err != nil || stop != "end_turn" || !strings.Contains(piAgentText(updates), "Answer after the retry.") {
		t.Fatalf("retried turn: stop=%q err=%v text=%q\nhub stderr:\n%s", stop, err, piAgentText(updates), h.stderr())
	}
	if !strings.Contains(piAgentText(updates), "pi retries in") {
		t.Errorf("the retry notice did not reach the client: %q", piAgentText(updates))
	}
	h.close()
}

func TestPi_CapabilitiesHaveNoPermissions(t *testing.T) {
	c := pi.New(config.AgentConfig{}, zerolog.Nop()).Capabilities()
	if c.Permissions || !strings.Contains(c.Notes, "no permission hook") {
		t.Errorf("pi capabilities = %+v, want Permissions=false with a note", c)
	}
}

// lastMessages returns the messages of the mock's last request.
func lastMessages(mock *mockllm.OpenAIServer) []map[string]any {
	reqs := mock.Requests()
	if len(reqs) == 0 {
		return nil
	}
	return reqs[len(reqs)-1].Messages
}
