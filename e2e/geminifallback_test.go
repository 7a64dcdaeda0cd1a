//go:build e2e && unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

// e2eNoACPEnv makes the test binary the CLI it names without its ACP
// mode: started with --acp it exits at once (the handshake fails, so hub
// takes the agent's stream-json fallback), else it becomes that CLI.
const e2eNoACPEnv = "HUB_E2E_NO_ACP"

func e2eNoACP(cli string) {
	if slices.Contains(os.Args[1:], "--acp") {
		os.Exit(2)
	}
	err := syscall.Exec(cli, append([]string{cli}, os.Args[1:]...), os.Environ())
	os.Stderr.WriteString(err.Error() + "\n")
	os.Exit(2)
}

// gemini's stream-json fallback with `mode = "yolo"` in hub's config: in a
// folder trusted for the run (--trust-project) the mode applies and the
// file is written (the fallback ran gemini's default mode, where headless
// gemini has no write tool, and the run exited 0 having written nothing);
// in a folder gemini does not trust, gemini 0.61 refuses to run at all,
// and the run fails (exit 1) with gemini's reason.
func TestGemini_FallbackKeepsTheModeOrFails(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		trusted bool
		code    int
	}{{"untrusted folder", false, 1}, {"folder trusted for the run", true, 0}} {
		t.Run(tt.name, func(t *testing.T) {
			mock := mockllm.NewGeminiServer(
				mockllm.GeminiTurn{ToolCalls: []mockllm.GeminiToolCall{{Name: "write_file", Args: `{"file_path":"a.txt","content":"hi"}`}}},
				mockllm.GeminiTurn{Text: "done"})
			defer mock.Close()
			home := t.TempDir()
			geminiSettings(t, home)
			env := []string{fmt.Sprintf("%s = %q", e2eNoACPEnv, bin)}
			for k, v := range geminiEnv(mock) {
				env = append(env, fmt.Sprintf("%s = %q", k, v))
			}
			cfg := fmt.Sprintf("default_agent = \"gemini\"\n[agents.gemini]\ncommand = [%q, \"--acp\", \"-m\", %q]\nmode = \"yolo\"\nenv = { %s }\n",
				self, geminiModel, strings.Join(env, ", "))
			cwd := t.TempDir()
			args := []string{"--agent", "gemini", "--cwd", cwd, "--format", "jsonl", "write a.txt"}
			if tt.trusted {
				args = append([]string{"--trust-project"}, args...)
			}
			r := runHub(t, home, cfg, "", args...)
			s := runSummary(t, r)
			data, err := os.ReadFile(filepath.Join(cwd, "a.txt"))
			if r.code != tt.code || (err == nil) != tt.trusted || (s["error"] != nil) == tt.trusted {
				t.Fatalf("exit %d (want %d), a.txt %q (%v), summary %v\n%s", r.code, tt.code, data, err, s, e2eTail(r.stderr, 20))
			}
			if why := fmt.Sprint(s["error"], s["detail"]); strings.ContainsRune(why, '\x1b') {
				t.Fatalf("the failure's line carries gemini's terminal codes: %q", why)
			}
		})
	}
}
