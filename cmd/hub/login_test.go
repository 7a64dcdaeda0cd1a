package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// fakeCLI puts a program named name on the isolated PATH that records its
// arguments and exits with code.
func fakeCLI(t *testing.T, root, name, code string) (argsFile string) {
	t.Helper()
	argsFile = filepath.Join(root, name+".args")
	proctest.Install(t, filepath.Join(root, "bin"), name, "args>:"+argsFile, "exit:"+code)
	return argsFile
}

func TestLogin_RunsTheAgentsOwnLogin(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		cli      string
		code     string
		wantArgs string
		wantExit int
	}{
		{name: "claude", args: []string{"login", "claude"}, cli: "claude", code: "0", wantArgs: "auth login", wantExit: 0},
		{name: "exit code passes through", args: []string{"login", "codex"}, cli: "codex", code: "3", wantArgs: "login", wantExit: 3},
		{name: "logout", args: []string{"logout", "codex"}, cli: "codex", code: "0", wantArgs: "logout", wantExit: 0},
		{name: "from an editor's terminal auth", args: []string{"acp", "--agent", "claude", "login", "claude"}, cli: "claude", code: "0", wantArgs: "auth login"},
		{name: "an agent without a login", args: []string{"login", "pi"}, wantExit: exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := isolate(t)
			var argsFile string
			if tc.cli != "" {
				argsFile = fakeCLI(t, root, tc.cli, tc.code)
			}
			code, _, errOut := hub(t, strings.NewReader(""), tc.args...)
			if code != tc.wantExit {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.wantExit, errOut)
			}
			if argsFile == "" {
				return
			}
			b, err := os.ReadFile(argsFile)
			if err != nil || strings.TrimSpace(string(b)) != tc.wantArgs {
				t.Fatalf("agent ran with %q (%v), want %q", b, err, tc.wantArgs)
			}
		})
	}
}

// An editor that can run terminal auth is offered the login of each agent
// here that is not logged in; others are offered none.
func TestAcp_OffersTerminalLoginsForAgentsNotLoggedIn(t *testing.T) {
	root := isolate(t)
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("CLAUDE_CODE_OAUTH_TOKEN", "")
	fakeCLI(t, root, "claude", "0")
	for _, terminal := range []bool{true, false} {
		in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"auth":{"terminal":` +
			map[bool]string{true: "true", false: "false"}[terminal] + `}}}}` + "\n"
		code, out, errOut := hub(t, strings.NewReader(in), "acp")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var res struct {
			Result struct {
				AuthMethods []struct {
					ID   string   `json:"id"`
					Type string   `json:"type"`
					Args []string `json:"args"`
				} `json:"authMethods"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &res); err != nil {
			t.Fatalf("initialize answer %q: %v", out, err)
		}
		m := res.Result.AuthMethods
		switch {
		case !terminal && len(m) != 0:
			t.Errorf("a client without terminal auth was offered %+v", m)
		case terminal && (len(m) != 2 || m[0].ID != "login" || m[1].ID != "login-claude" || m[1].Type != "terminal" || strings.Join(m[1].Args, " ") != "login claude"):
			t.Errorf("auth methods %+v, want hub login and claude's terminal login only", m)
		}
	}
}

// hub login without an agent asks which one in a terminal (by number or
// name) and runs its login; without a terminal it lists them and exits 2.
func TestLogin_ChoosesTheAgent(t *testing.T) {
	tests := []struct {
		name     string
		tty      bool
		args     []string
		stdin    string
		wantExit int
		ran      bool
	}{
		{name: "by number", tty: true, args: []string{"login"}, stdin: "1\n", ran: true},
		{name: "by name", tty: true, args: []string{"login"}, stdin: "claude\n", ran: true},
		{name: "from terminal auth", tty: true, args: []string{"acp", "login"}, stdin: "claude\n", ran: true},
		{name: "not a choice", tty: true, args: []string{"login"}, stdin: "99\n", wantExit: exitUsage},
		{name: "end of input", tty: true, args: []string{"login"}, stdin: "", wantExit: exitUsage},
		{name: "no terminal", args: []string{"login"}, stdin: "1\n", wantExit: exitUsage},
	}
	if loginAgents()[0].Name != "claude" {
		t.Fatalf("the first agent with a login is %s; the table assumes claude", loginAgents()[0].Name)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := isolate(t)
			argsFile := fakeCLI(t, root, "claude", "0")
			old := stdinIsTerminal
			stdinIsTerminal = func(io.Reader) bool { return tc.tty }
			t.Cleanup(func() { stdinIsTerminal = old })
			code, _, errOut := hub(t, strings.NewReader(tc.stdin), tc.args...)
			if code != tc.wantExit {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.wantExit, errOut)
			}
			if !strings.Contains(errOut, "1) claude") {
				t.Errorf("the agents were not listed:\n%s", errOut)
			}
			_, err := os.Stat(argsFile)
			if ran := err == nil; ran != tc.ran {
				t.Errorf("claude's login ran: %v, want %v", ran, tc.ran)
			}
		})
	}
}

// An invalid config does not kill hub acp: the editor's session request
// answers the error naming the file and the rule, and stderr says it.
func TestAcp_InvalidConfigFailsSessionsNamingIt(t *testing.T) {
	root := isolate(t)
	cfg := filepath.Join(root, "xdg_config_home", "hub", "config.toml")
	if err := os.WriteFile(cfg, []byte("[[permissions.rules]]\ntool = \"bash\"\ndecision = \"alow\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}` + "\n"
	_, out, errOut := hub(t, strings.NewReader(in), "acp")
	var initOK, newRefused bool
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") { // answers may come in either order
		initOK = initOK || (strings.Contains(l, `"id":1,`) && strings.Contains(l, `"result"`))
		newRefused = newRefused || (strings.Contains(l, `"id":2,`) && strings.Contains(l, `"error"`) && strings.Contains(l, "permissions.rules[0]"))
	}
	if !initOK || !newRefused || !strings.Contains(errOut, "config.toml") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s\nwant initialize answered and session/new refused naming the rule", out, errOut)
	}
}
