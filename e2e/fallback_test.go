//go:build e2e && unix

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
)

// The real claude whose provider refuses the key hands hub run over to the
// fallback agent at its first refused retry, not after its own retries.
func TestFallback_ClaudeUnauthorized(t *testing.T) {
	claudeFallback(t, mockllm.AnthropicTurn{Status: 401, ErrorType: "authentication_error", ErrorMsg: "invalid x-api-key"},
		45*time.Second, "claude is not logged in")
}

// The real claude whose provider keeps answering 500 hands hub run over
// once its retries last past [fallback] provider_timeout (the default).
func TestFallback_ClaudeServerError(t *testing.T) {
	claudeFallback(t, mockllm.AnthropicTurn{Status: 500, ErrorType: "api_error", ErrorMsg: "mock: internal error"},
		90*time.Second, "claude's provider is failing")
}

// Over ACP, the same claude hands the turn to the agent its fallback
// config names, at the first refused retry.
func TestFallback_ClaudeUnauthorizedOverACP(t *testing.T) {
	cfg, done := claudeFallbackConfig(t, mockllm.AnthropicTurn{Status: 401, ErrorType: "authentication_error", ErrorMsg: "invalid x-api-key"})
	defer done()
	h := startHub(t, strings.Replace(cfg, "[agents.claude.env]", "fallback = [\"backup\"]\n[agents.claude.env]", 1), nil)
	h.initialize(nil)
	sid := h.newSession(t.TempDir())
	stop, updates, err := h.prompt(sid, "say hello")
	text := claudeChunkText(updates)
	if err != nil || stop != "end_turn" || !strings.Contains(text, "hub: claude is not logged in; continuing with backup.") ||
		!strings.HasSuffix(text, "backup answered") {
		t.Fatalf("stop %q err %v text %q\n%s", stop, err, text, e2eTail(h.stderr(), 30))
	}
}

// claudeFallbackConfig is a hub config running claude against a mock
// answering every request with fail, and a native provider "backup" on
// another mock; done closes both.
func claudeFallbackConfig(t *testing.T, fail mockllm.AnthropicTurn) (cfg string, done func()) {
	turns := make([]mockllm.AnthropicTurn, 100)
	for i := range turns {
		turns[i] = fail
	}
	mock := mockllm.NewAnthropicServer(turns...)
	backup := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "backup answered"})
	cfg = claudeHubConfig(t, mock) + "\n[providers.backup]\npreset = \"ollama\"\nmodel = \"mock-model\"\nbase_url = " +
		strconvQuote(backup.URL) + "\n"
	return cfg, func() { mock.Close(); backup.Close() }
}

// claudeFallback runs claude against a mock answering every request with
// fail, with a native provider on another mock as its fallback.
func claudeFallback(t *testing.T, fail mockllm.AnthropicTurn, within time.Duration, reason string) {
	cfg, done := claudeFallbackConfig(t, fail)
	defer done()
	fallbackRun(t, t.TempDir(), cfg, "claude", within, reason)
}

// The real gemini whose provider refuses the key hands hub run over to the
// fallback agent at once (gemini does not retry a 401).
func TestFallback_GeminiUnauthorized(t *testing.T) {
	geminiFallback(t, 401, 45*time.Second, "gemini is not logged in")
}

// The real gemini whose provider keeps answering 500 hands hub run over
// once the retries its debug log tells of last past [fallback]
// provider_timeout (the default), not after its own ten attempts.
func TestFallback_GeminiServerError(t *testing.T) {
	geminiFallback(t, 500, 90*time.Second, "gemini's provider is failing")
}

// geminiFallback runs gemini against a mock answering every model call
// with status, with a native provider on another mock as its fallback.
func geminiFallback(t *testing.T, status int, within time.Duration, reason string) {
	turns := make([]mockllm.GeminiTurn, 100)
	for i := range turns {
		turns[i] = mockllm.GeminiTurn{Status: status}
	}
	mock := mockllm.NewGeminiServer(turns...)
	defer mock.Close()
	backup := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "backup answered"})
	defer backup.Close()
	home := t.TempDir()
	geminiSettings(t, home)
	cfg := geminiHubCfg(e2eCLI(t, "gemini", "gemini"), mock) + "\n[providers.backup]\npreset = \"ollama\"\nmodel = \"mock-model\"\nbase_url = " +
		strconvQuote(backup.URL) + "\n"
	fallbackRun(t, home, cfg, "gemini", within, reason)
}

// fallbackRun runs hub run with agent and the fallback "backup" within
// the bound, and checks that backup answered after agent failed for reason.
func fallbackRun(t *testing.T, home, cfg, agent string, within time.Duration, reason string) {
	r := runHubWithin(t, within, home, cfg, "", "--agent", agent, "--fallback", "backup", "--cwd", t.TempDir(),
		"--format", "jsonl", "say hello")
	s := runSummary(t, r)
	attempts, _ := s["attempts"].([]any)
	if r.code != 0 || s["agent"] != "backup" || len(attempts) != 2 {
		t.Fatalf("exit %d summary %v\n%s", r.code, s, e2eTail(r.stderr, 30))
	}
	if first, _ := attempts[0].(map[string]any); first["fallback"] != reason {
		t.Fatalf("first attempt %v, want the fallback reason %q", first, reason)
	}
	if runText(r) != "backup answered" {
		t.Errorf("text %q, want the fallback's answer", runText(r))
	}
}
