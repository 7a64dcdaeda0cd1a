//go:build e2e

package e2e

import (
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

// claudeFallback runs claude against a mock answering every request with
// fail, with a native provider on another mock as its fallback.
func claudeFallback(t *testing.T, fail mockllm.AnthropicTurn, within time.Duration, reason string) {
	turns := make([]mockllm.AnthropicTurn, 100)
	for i := range turns {
		turns[i] = fail
	}
	mock := mockllm.NewAnthropicServer(turns...)
	defer mock.Close()
	backup := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "backup answered"})
	defer backup.Close()
	cfg := claudeHubConfig(t, mock) + "\n[providers.backup]\npreset = \"ollama\"\nmodel = \"mock-model\"\nbase_url = " +
		strconvQuote(backup.URL) + "\n"
	r := runHubWithin(t, within, t.TempDir(), cfg, "", "--agent", "claude", "--fallback", "backup", "--cwd", t.TempDir(),
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
