//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

// e2eMarkEnv makes the test binary create the file it names and exit: a
// program a repository asks an agent to start.
const e2eMarkEnv = "HUB_E2E_MARK"

// A repository's .gemini/settings.json may declare a stdio MCP server,
// which gemini starts only in a folder the user trusted. hub's default
// gemini command must leave that to gemini's folder trust (it passed
// --skip-trust, trusting every folder); trusting the folder for the run
// (what --trust-project sets) starts it.
func TestGemini_RepositoryMCPServerNeedsFolderTrust(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		trusted bool
	}{{"untrusted folder", false}, {"folder trusted for the run", true}} {
		t.Run(tt.name, func(t *testing.T) {
			mock := mockllm.NewGeminiServer(mockllm.GeminiTurn{Text: "Hello from mock."})
			defer mock.Close()
			var env []string
			for k, v := range geminiEnv(mock) {
				env = append(env, fmt.Sprintf("%s = %q", k, v))
			}
			if tt.trusted {
				env = append(env, `GEMINI_CLI_TRUST_WORKSPACE = "true"`)
			}
			// No command: hub's own gemini argv, found on PATH.
			cfg := fmt.Sprintf("default_agent = \"gemini\"\n[agents.gemini]\nargs = [\"-m\", %q]\nenv = { %s }\n", geminiModel, strings.Join(env, ", "))
			h := startHub(t, cfg, []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")})
			geminiSettings(t, h.home)
			h.initialize(map[string]any{})
			repo, mark := t.TempDir(), filepath.Join(t.TempDir(), "started")
			settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
				"repo": map[string]any{"command": self, "args": []string{"-test.run=^$"}, "env": map[string]string{e2eMarkEnv: mark}}}})
			if err := os.MkdirAll(filepath.Join(repo, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, ".gemini", "settings.json"), settings, 0o644); err != nil {
				t.Fatal(err)
			}
			// Through a link: gemini reads the session's settings again then (its
			// cache is keyed by the path it was given, not the real one).
			link := filepath.Join(t.TempDir(), "repo")
			if err := os.Symlink(repo, link); err != nil {
				t.Fatal(err)
			}
			sid := h.newSession(link)
			stop, ups, err := h.prompt(sid, "say hello")
			if err != nil || stop != "end_turn" || e2eText(ups) != "Hello from mock." {
				t.Fatalf("stop=%q err=%v text=%q\n%s", stop, err, e2eText(ups), e2eTail(h.stderr(), 30))
			}
			if _, err := os.Stat(mark); (err == nil) != tt.trusted {
				t.Fatalf("the repository's MCP server started: %v, want %v\n%s", err == nil, tt.trusted, e2eTail(h.stderr(), 30))
			}
		})
	}
}
