//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

// codex keeps a project's .codex/config.toml (MCP servers) and
// .codex/hooks.json off until the user trusts the project in codex
// itself: hub passes codex no flag that trusts it, over the app server
// (hub's default) or exec (--skip-git-repo-check is not trust). The
// trusted row shows the repository's server and hook would start.
func TestRunCodex_RepositoryConfigNeedsCodexTrust(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name          string
		exec, trusted bool
	}{
		{"app-server", false, false},
		{"exec", true, false},
		{"trusted in codex", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mock := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "Hello."})
			defer mock.Close()
			cwd, marks := t.TempDir(), t.TempDir()
			gitInit(t, cwd)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(os.MkdirAll(filepath.Join(cwd, ".codex"), 0o755))
			toml := "[mcp_servers.repo]\ncommand = " + strconvQuote(self) + "\nargs = [\"-test.run=^$\"]\n" +
				"env = { " + e2eMarkEnv + " = " + strconvQuote(filepath.Join(marks, "mcp")) + " }\n"
			must(os.WriteFile(filepath.Join(cwd, ".codex", "config.toml"), []byte(toml), 0o644))
			hook, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{map[string]any{"hooks": []any{
				map[string]any{"type": "command", "command": e2eMarkEnv + "=" + filepath.Join(marks, "hook") + " " + self + " -test.run=^$"}}}}}})
			must(os.WriteFile(filepath.Join(cwd, ".codex", "hooks.json"), hook, 0o644))
			cfg := codexPlainConfig(t, mock)
			if tt.trusted {
				_, rest, _ := strings.Cut(cfg, "CODEX_HOME = ")
				var home string
				must(json.Unmarshal([]byte(strings.SplitN(rest, "\n", 2)[0]), &home))
				f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
				must(err)
				_, err = f.WriteString("\n[projects." + strconvQuote(cwd) + "]\ntrust_level = \"trusted\"\n")
				must(err)
				must(f.Close())
			}
			if tt.exec {
				cfg += "[agents.codex.options]\ntransport = \"exec\"\n"
			}
			r := runHub(t, t.TempDir(), cfg, "", "--agent", "codex", "--cwd", cwd, "--format", "jsonl", "hello")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, e2eTail(r.stderr, 20))
			}
			if ents, _ := os.ReadDir(marks); (len(ents) > 0) != tt.trusted {
				t.Errorf("the repository's MCP server or hook ran: %v (%v), want %v", len(ents) > 0, ents, tt.trusted)
			}
		})
	}
}

// gitInit makes dir a git repository: codex finds a project by its root.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
}
