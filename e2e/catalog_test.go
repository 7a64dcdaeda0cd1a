//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/mockllm"
)

// catalogAgents are the catalogued ACP agents scripts/e2e-deps.sh installs
// (pinned, under CACHE/catalog), as a user would have them: on PATH, with
// no [agents.NAME] entry in hub's config.
var catalogAgents = []struct {
	name, bin, version string
	// login is set for agents that refuse a session without a hosted
	// login: how hub must tell the user to log in.
	login string
}{
	{name: "opencode", bin: "opencode", version: "1.18.33"},
	{name: "kilo", bin: "kilo", version: "7.7.7"},
	{name: "copilot", bin: "copilot", version: "1.0.102", login: "copilot login"},
	{name: "qwen", bin: "qwen", version: "0.24.4", login: "`qwen`"},
	{name: "auggie", bin: "auggie", version: "0.36.0", login: "auggie login"},
}

// catalogPATH puts every catalogued agent's bin dir ahead of the test's PATH.
func catalogPATH(t *testing.T) string {
	t.Helper()
	var dirs []string
	for _, a := range catalogAgents {
		dirs = append(dirs, filepath.Dir(e2eCLI(t, filepath.Join("catalog", a.name), a.bin)))
	}
	return "PATH=" + strings.Join(dirs, ":") + ":" + os.Getenv("PATH")
}

// hubDoctor runs `hub doctor --json --agent NAME` in home with env.
func hubDoctor(t *testing.T, home, name string, env []string) map[string]any {
	t.Helper()
	cmd := exec.Command(e2eHubBin(t), "doctor", "--json", "--agent", name)
	cmd.Dir, cmd.Env = home, e2eEnv(home, "doctor", env)
	out, _ := cmd.Output() // exit 1 when the agent is not ready
	var r struct{ Agents []map[string]any }
	if err := json.Unmarshal(out, &r); err != nil || len(r.Agents) != 1 {
		t.Fatalf("hub doctor --json --agent %s: %v\n%s", name, err, out)
	}
	return r.Agents[0]
}

func TestCatalog_AgentsWorkWithNoConfig(t *testing.T) {
	path := catalogPATH(t)
	for _, a := range catalogAgents {
		t.Run(a.name, func(t *testing.T) {
			home := t.TempDir()
			env := []string{path}
			d := hubDoctor(t, home, a.name, env)
			caps, _ := d["capabilities"].(map[string]any)
			if d["installed"] != true || d["catalog"] != true || d["version"] != a.version || caps == nil {
				t.Fatalf("doctor: %v", d)
			}
			if a.name == "auggie" && !strings.Contains(d["fix"].(string), "auggie login") {
				t.Errorf("doctor does not say how to log in to auggie: %v", d)
			}

			h := startHubIn(t, home, `default_agent = "`+a.name+`"`, env)
			h.initialize(map[string]any{})
			res := h.newSessionResult(t.TempDir())
			if !agentOffered(res, a.name) {
				t.Fatalf("%s is not in the session's agent select: %v", a.name, res["configOptions"])
			}
			sid := res["sessionId"].(string)
			if a.login == "" {
				// The agent's own session/new answered: its models reach the editor.
				if _, ok := h.waitUpdate(func(u map[string]any) bool {
					return u["sessionUpdate"] == "config_option_update" && hasOption(u, "model")
				}, 2*time.Minute); !ok {
					t.Fatalf("no model option from %s's session/new\nhub stderr:\n%s", a.name, e2eTail(h.stderr(), 30))
				}
				h.close()
				return
			}
			_, _, err := h.prompt(sid, "hello")
			if rpcCode(err) != -32000 || !strings.Contains(err.Error(), a.login) {
				t.Fatalf("prompt without a login: err = %v (code %d), want -32000 naming %q\nhub stderr:\n%s", err, rpcCode(err), a.login, e2eTail(h.stderr(), 30))
			}
			h.close()
		})
	}
}

func TestCatalog_EnabledFalseHidesAnInstalledAgent(t *testing.T) {
	h := startHub(t, "[agents.opencode]\nenabled = false\n", []string{catalogPATH(t)})
	h.initialize(map[string]any{})
	res := h.newSessionResult(t.TempDir())
	if agentOffered(res, "opencode") || !agentOffered(res, "kilo") {
		t.Fatalf("agent select: %v", res["configOptions"])
	}
	h.close()
}

// agentOffered reports whether the session's agent select lists name.
func agentOffered(res map[string]any, name string) bool {
	opts, _ := res["configOptions"].([]any)
	for _, o := range opts {
		m, _ := o.(map[string]any)
		if m["id"] != "agent" {
			continue
		}
		vals, _ := m["options"].([]any)
		for _, v := range vals {
			if vm, _ := v.(map[string]any); vm["value"] == name {
				return true
			}
		}
	}
	return false
}

// hasOption reports whether a config_option_update carries option id.
func hasOption(u map[string]any, id string) bool {
	opts, _ := u["configOptions"].([]any)
	for _, o := range opts {
		if m, _ := o.(map[string]any); m["id"] == id {
			return true
		}
	}
	return false
}

// TestCatalog_QwenOnTheMockLLM runs a catalogued agent end to end with no
// [agents.qwen] entry: qwen, logged in by OPENAI_API_KEY against the mock,
// asks to run a shell command, the editor rejects it, the command never
// runs, the tool call ends failed and the turn ends (qwen stops the turn
// on a rejection rather than asking the model again).
func TestCatalog_QwenOnTheMockLLM(t *testing.T) {
	mock := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{Text: "Running it.", ToolCalls: []mockllm.OpenAIToolCall{
			{Name: "run_shell_command", Args: `{"command":"echo ran > out.txt","description":"write out.txt"}`}}},
	)
	defer mock.Close()
	home := t.TempDir()
	settings := filepath.Join(home, ".qwen", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"security":{"auth":{"selectedType":"openai"}},"model":{"name":"mock-model"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{catalogPATH(t), "OPENAI_API_KEY=sk-mock", "OPENAI_BASE_URL=" + mock.URL, "OPENAI_MODEL=mock-model"}
	h := startHubIn(t, home, `default_agent = "qwen"`, env)
	h.initialize(map[string]any{})
	cwd := t.TempDir()
	sid := h.newSession(cwd)
	stop, updates, err := h.prompt(sid, "write out.txt with a shell command")
	if err != nil || stop != "end_turn" {
		t.Fatalf("stop=%q err=%v\nhub stderr:\n%s", stop, err, e2eTail(h.stderr(), 40))
	}
	if len(h.permissionRequests()) == 0 {
		t.Fatalf("qwen ran a shell command without asking; updates: %v", updates)
	}
	if _, err := os.Stat(filepath.Join(cwd, "out.txt")); err == nil {
		t.Fatal("the rejected command ran: out.txt exists")
	}
	if !piHasUpdate(updates, func(u map[string]any) bool { return u["sessionUpdate"] == "tool_call" && u["kind"] == "execute" }) ||
		!piHasUpdate(updates, func(u map[string]any) bool {
			return u["sessionUpdate"] == "tool_call_update" && u["status"] == "failed"
		}) {
		t.Errorf("want an execute tool call that ends failed: %v", updates)
	}
	if !strings.Contains(piAgentText(updates), "Running it.") {
		t.Errorf("qwen's text before the tool call is missing: %q", piAgentText(updates))
	}
	h.close()
}
