package acp

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/permission/permtest"
)

// TestShapesAgent is not a test: re-executed with $HUB_PERMTEST_AGENT set,
// the test binary is the scripted ACP agent of the shape rows.
func TestShapesAgent(t *testing.T) {
	if os.Getenv(permtest.AgentEnv) == "" {
		t.Skip("the scripted ACP agent of TestShapes_*")
	}
	permtest.RunAgent()
}

// agentOutcomes reads the "NAME=outcome" lines of the shapes agent's text.
func agentOutcomes(text string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		if name, outcome, ok := strings.Cut(strings.TrimSpace(l), "="); ok && !strings.ContainsAny(name, " \"") {
			out[name] = outcome
		}
	}
	return out
}

// allowAll is the rule under which only the deny list and the must-ask
// requests keep a call from running unasked.
var allowAll = config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "*", Decision: "allow"}}}

func shapeRows(t *testing.T, ws string) []permtest.Row {
	t.Helper()
	rows, err := permtest.Rows(filepath.Join("..", "internal", "permission", "testdata", "shapes.txt"), ws)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// askedEditor is an editor that rejects every permission request but an
// always row's NAME-shown call (permtest.AlwaysRows), which it answers
// "always", and records the tool calls it was asked about; it serves
// terminals and files without running or reading anything.
type askedEditor struct {
	mu    sync.Mutex
	asked map[string]bool
}

func (e *askedEditor) perm(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
	e.mu.Lock()
	e.asked[path.Base(p.ToolCall.ToolCallID)] = true // a delegate's: delegate/SESSION/ID
	e.mu.Unlock()
	if strings.HasSuffix(p.ToolCall.ToolCallID, "-shown") {
		return selectKind("allow_always")(p)
	}
	return selectKind("reject_once")(p)
}

func (e *askedEditor) fs(method string, _ json.RawMessage) (any, *jsonrpc.Error) {
	switch method {
	case "terminal/create":
		return map[string]any{"terminalId": "term"}, nil
	case "terminal/wait_for_exit":
		return map[string]any{"exitCode": 0}, nil
	case "terminal/output":
		return map[string]any{"output": "", "truncated": false}, nil
	case "fs/read_text_file":
		return map[string]any{"content": "x"}, nil
	}
	return map[string]any{}, nil
}

func (e *askedEditor) wasAsked(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.asked[id]
}

// Every row is classified the same by hub acp relaying an ACP agent and
// by hub acp running the native loop: refused unasked (deny), asked
// although a rule allows everything (ask), or allowed by the rule (ok).
// internal/runner's TestShapes_HubRunClassifiesAlike runs the same rows
// through hub run.
func TestShapes_HubACPClassifiesAlike(t *testing.T) {
	t.Run("relay", func(t *testing.T) {
		ws := permtest.Workspace(t)
		rows := shapeRows(t, ws)
		checkRelayed(t, rows, ws, allowAll, false)
	})
	t.Run("native", func(t *testing.T) {
		ws := permtest.Workspace(t)
		checkNative(t, shapeRows(t, ws), ws, allowAll, adapters.ShellSh)
	})
}

// After an "always" for an always row's shown command (permtest.AlwaysRows),
// hub acp answers the same command itself and asks again for the row's
// later one, relaying an ACP agent, running the native loop, and for an
// ACP agent the session's agent delegates to.
func TestShapes_HubACPAlwaysNoBroaderThanShown(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // a docker credential helper would make docker rows asked every time
	none := config.PermissionsConfig{}
	for name, check := range map[string]func(*testing.T, []permtest.Row, string){
		"relay":    func(t *testing.T, rows []permtest.Row, ws string) { checkRelayed(t, rows, ws, none, false) },
		"delegate": func(t *testing.T, rows []permtest.Row, ws string) { checkRelayed(t, rows, ws, none, true) },
		"native":   func(t *testing.T, rows []permtest.Row, ws string) { checkNative(t, rows, ws, none, adapters.ShellSh) },
	} {
		t.Run(name, func(t *testing.T) {
			ws := permtest.Workspace(t)
			rows, err := permtest.AlwaysRows(filepath.Join("..", "internal", "permission", "testdata", "shapes.txt"), ws)
			if err != nil || len(rows) < 45 {
				t.Fatalf("%d always rows, %v", len(rows), err)
			}
			check(t, rows, ws)
		})
	}
}

// psRow is a native-loop bash call of a PowerShell line.
func psRow(name string, want permtest.Class, line string) permtest.Row {
	args, _ := json.Marshal(map[string]string{"command": line})
	return permtest.Row{Name: name, Want: want, NativeTool: "bash", NativeArgs: string(args)}
}

// hub acp's native loop on a PowerShell host reads its bash lines as
// PowerShell: a deny rule naming Remove-Item refuses its aliases, a secret
// PowerShell names is asked although a rule allows everything, and an
// "always" covers what PowerShell runs of the line shown, no more.
func TestShapes_HubACPNativePowerShell(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ps := adapters.ShellPowerShell
	t.Run("rules", func(t *testing.T) {
		perms := config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "bash", Command: "Remove-Item", Decision: "deny"}, {Tool: "*", Decision: "allow"}}}
		checkNative(t, []permtest.Row{psRow("ri", permtest.Deny, `ri -r build`), psRow("del", permtest.Deny, `del .\build -Recurse`),
			psRow("rm", permtest.Deny, `rm -r build`), psRow("home", permtest.Deny, `Remove-Item -Recurse -Force ~`),
			psRow("key", permtest.Ask, `Get-Content $HOME\.ssh\id_rsa`), psRow("aws", permtest.Ask, `gc $env:USERPROFILE\.aws\credentials`),
			psRow("status", permtest.OK, `git status`), psRow("ls", permtest.OK, `Get-ChildItem -Recurse src`)}, permtest.Workspace(t), perms, ps)
	})
	t.Run("always", func(t *testing.T) {
		checkNative(t, []permtest.Row{
			psRow("rm-shown", permtest.Ask, `Remove-Item .\build -Recurse`), psRow("rm-again", permtest.OK, `Remove-Item .\build -Recurse`),
			psRow("rm-later", permtest.Ask, `Remove-Item .\src -Recurse`),
			psRow("block-shown", permtest.Ask, `Measure-Command { Remove-Item -Recurse ./build }`),
			psRow("block-later", permtest.Ask, `Measure-Command { Remove-Item -Recurse ./src }`),
			psRow("env-shown", permtest.Ask, `Remove-Item $env:TEMP\x -Recurse`), psRow("env-again", permtest.Ask, `Remove-Item $env:TEMP\x -Recurse`),
			psRow("log-shown", permtest.Ask, `git log .\a`), psRow("log-later", permtest.OK, `git log .\b`), psRow("push", permtest.Ask, `git push`),
		}, permtest.Workspace(t), config.PermissionsConfig{}, ps)
	})
}

// checkRelayed has the scripted ACP agent send rows through hub acp (see
// relayRows) and checks each is refused unasked, asked, or allowed
// unasked, as it wants.
func checkRelayed(t *testing.T, rows []permtest.Row, ws string, perms config.PermissionsConfig, delegated bool) {
	t.Helper()
	outcomes, ed := relayRows(t, rows, ws, perms, delegated)
	for _, r := range rows {
		got := permtest.Deny
		switch {
		case ed.wasAsked(r.Name):
			got = permtest.Ask
		case outcomes[r.Name] == "allowed":
			got = permtest.OK
		case outcomes[r.Name] == "":
			t.Errorf("%s: the agent reported no outcome", r.Name)
		}
		if got != r.Want {
			t.Errorf("%s %v: %s (outcome %q), want %s", r.Name, r.ToolCall["rawInput"], got, outcomes[r.Name], r.Want)
		}
	}
}

// checkNative has hub acp's native loop make rows' calls in one reply, in
// a session at ws under perms, its bash tool in shell (the rows' grammar:
// under Wine the host's is PowerShell), and checks each as checkRelayed
// does.
func checkNative(t *testing.T, rows []permtest.Row, ws string, perms config.PermissionsConfig, shell adapters.Shell) {
	t.Helper()
	calls, native := permtest.NativeCalls(rows)
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{ToolCalls: calls}, mockllm.OpenAITurn{Text: "done"})
	defer srv.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 1 << 20},
		openai.Options{IdleTimeout: 30 * time.Second, Shell: shell}))
	c := startClient(t, Options{Registry: reg, DefaultAgent: "native", Logger: zerolog.Nop(), StateDir: t.TempDir(),
		CancelGrace: time.Minute, Settings: everywhere(Settings{Permissions: perms})})
	ed := &askedEditor{asked: map[string]bool{}}
	c.perm, c.fs = ed.perm, ed.fs
	c.init(schema.ClientCapabilities{FS: schema.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true})
	sid := c.newSession(ws)
	c.prompt(sid, "go")
	status := map[string]string{}
	for _, u := range c.updates(sid) {
		switch {
		case u.ToolCall != nil && u.ToolCall.Status != "":
			status[u.ToolCall.ToolCallID] = u.ToolCall.Status
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != "":
			status[u.ToolCallUpdate.ToolCallID] = u.ToolCallUpdate.Status
		}
	}
	for _, r := range native {
		got := permtest.Deny
		switch {
		case ed.wasAsked(r.Name):
			got = permtest.Ask
		case status[r.Name] == "completed":
			got = permtest.OK
		}
		if got != r.Want {
			t.Errorf("%s %s %s: %s (status %q), want %s", r.Name, r.NativeTool, r.NativeArgs, got, status[r.Name], r.Want)
		}
	}
}

// relayRows has the scripted ACP agent send rows' tool calls through hub
// acp, in a session at cwd under perms, as the session's agent or
// (delegated) as the delegate of a session agent that delegates each
// prompt: the outcome the agent reports per row, and what the editor was
// asked.
func relayRows(t *testing.T, rows []permtest.Row, cwd string, perms config.PermissionsConfig, delegated bool) (map[string]string, *askedEditor) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "rows.json")
	if err := permtest.WriteRows(file, rows); err != nil {
		t.Fatal(err)
	}
	reg := adapters.NewRegistry()
	reg.Register(acpclient.New(acpclient.Config{Name: "shapes", Argv: []string{os.Args[0], "-test.run=^TestShapesAgent$"},
		Env: map[string]string{permtest.AgentEnv: file}, InitTimeout: 30 * time.Second, StopGrace: time.Second, Logger: zerolog.Nop()}))
	opts, prompt := Options{Registry: reg, DefaultAgent: "shapes", Logger: zerolog.Nop(), StateDir: t.TempDir(),
		CancelGrace: time.Minute, Settings: everywhere(Settings{Permissions: perms})}, "go"
	if delegated {
		reg.Register(&delegatingAgent{})
		opts.DefaultAgent, opts.Self, opts.Delegation, prompt = "root", "/usr/local/bin/hub", true, "shapes: go"
	}
	c := startClient(t, opts)
	c.guard = 10 * hangGuard // one prompt makes every row's call, each asked over two pipes: minutes under Wine
	ed := &askedEditor{asked: map[string]bool{}}
	c.perm = ed.perm
	c.init(schema.ClientCapabilities{})
	sid := c.newSession(cwd)
	c.prompt(sid, prompt)
	return agentOutcomes(c.agentText(sid)), ed
}

// A session whose cwd is the home reads the agent's commands there, not in
// hub's own directory: .ssh/authorized_keys is the home's key file, and a
// tool call's own cwd wins over the session's.
func TestShapes_RelayReadsTheSessionCwd(t *testing.T) {
	permtest.Workspace(t)
	home := os.Getenv("HOME")
	exec := func(name, cmd string, want permtest.Class, cwd ...string) permtest.Row {
		raw := map[string]any{"command": cmd}
		if len(cwd) > 0 {
			raw["cwd"] = cwd[0]
		}
		return permtest.Row{Name: name, Want: want, ToolCall: map[string]any{"toolCallId": name, "title": cmd, "kind": "execute", "rawInput": raw}}
	}
	rows := []permtest.Row{exec("append-key", "cat k >> .ssh/authorized_keys", permtest.Deny), exec("cd-aws", "cd .aws && env cp c credentials", permtest.Deny),
		exec("notes", "echo x > notes.txt", permtest.OK), exec("call-cwd", "cat k >> .ssh/authorized_keys", permtest.OK, t.TempDir())}
	outcomes, ed := relayRows(t, rows, home, allowAll, false)
	for _, r := range rows {
		got := permtest.Deny
		if outcomes[r.Name] == "allowed" {
			got = permtest.OK
		}
		if got != r.Want || ed.wasAsked(r.Name) {
			t.Errorf("%s %v: %s (outcome %q, asked %v), want %s", r.Name, r.ToolCall["rawInput"], got, outcomes[r.Name], ed.wasAsked(r.Name), r.Want)
		}
	}
}

// An agent offering two options under one id is refused without asking:
// whichever the user picked, hub could not tell the agent, nor remember
// the right answer (before, picking "Allow once" was remembered as the
// "always" sharing its id, and the next call ran unasked).
func TestRelay_DuplicateOptionIDsRefused(t *testing.T) {
	opts := []adapters.PermissionOption{{ID: "x", Name: "Allow once", Kind: adapters.AllowOnce},
		{ID: "x", Name: "Always allow", Kind: adapters.AllowAlways}, {ID: "r", Name: "Reject", Kind: adapters.RejectOnce}}
	step := func(id string) string {
		tool := adapters.ToolCall{ID: id, Name: "Bash", Title: "ls", Kind: adapters.KindExecute, RawInput: json.RawMessage(`{"command":"ls"}`)}
		b, _ := json.Marshal(map[string]any{"permission": map[string]any{"tool": tool, "options": opts},
			"allowed":  []any{map[string]any{"event": map[string]any{"type": "text", "text": "ran " + id + ";"}}},
			"rejected": []any{map[string]any{"event": map[string]any{"type": "text", "text": "refused " + id + ";"}}}})
		return string(b)
	}
	c := newClient(t, scriptFile(t, step("a"), step("b")))
	asked := 0
	c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		asked++
		return schema.RequestPermissionResponse{Outcome: schema.RequestPermissionOutcome{Outcome: "selected", OptionID: "x"}}, nil
	}
	sid, _ := c.start(t)
	c.prompt(sid, "list")
	got := c.agentText(sid)
	if asked != 0 || !strings.Contains(got, "refused a;") || !strings.Contains(got, "refused b;") {
		t.Fatalf("asked %d times, agent said %q; want both refused unasked", asked, got)
	}
	if !strings.Contains(got, "hub refused") {
		t.Errorf("the session does not say why: %q", got)
	}
}

// Reading .git/config is offered an "always" as reading any workspace
// file is; writing a hook is not.
func TestRelay_AlwaysOfferedForReadingGitConfigOnly(t *testing.T) {
	for _, tt := range []struct {
		cmd    string
		always bool
	}{{"cat .git/config", true}, {"grep -r url .git", true}, {"tee -a .git/hooks/pre-commit", false}, {"cp x .GIT/CONFIG", false}} {
		raw, _ := json.Marshal(map[string]string{"command": tt.cmd})
		tool := adapters.ToolCall{ID: "b", Name: "Bash", Title: tt.cmd, Kind: adapters.KindExecute, RawInput: raw}
		b, _ := json.Marshal(map[string]any{"permission": map[string]any{"tool": tool}})
		c := newClient(t, scriptFile(t, string(b)))
		var kinds []string
		c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
			for _, o := range p.Options {
				kinds = append(kinds, o.Kind)
			}
			return selectKind("reject_once")(p)
		}
		sid, _ := c.start(t)
		c.prompt(sid, "go")
		if len(kinds) == 0 || slices.Contains(kinds, "allow_always") != tt.always {
			t.Errorf("%q: options shown %v, want an always %v", tt.cmd, kinds, tt.always)
		}
	}
}

// A call no "always" may cover (a secret read) is shown without the
// agent's "always allow", so neither hub nor the agent keeps one.
func TestRelay_NoAlwaysOfferedForSecretRead(t *testing.T) {
	tool := adapters.ToolCall{ID: "r", Name: "Read", Title: "Read .env", Kind: adapters.KindRead, RawInput: json.RawMessage(`{"file_path":".env"}`)}
	b, _ := json.Marshal(map[string]any{"permission": map[string]any{"tool": tool}})
	c := newClient(t, scriptFile(t, string(b)), func(o *Options) { o.Settings = everywhere(Settings{Permissions: allowAll}) })
	var kinds []string
	c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		for _, o := range p.Options {
			kinds = append(kinds, o.Kind)
		}
		return selectKind("reject_once")(p)
	}
	sid, _ := c.start(t)
	c.prompt(sid, "read")
	if len(kinds) == 0 || slices.Contains(kinds, "allow_always") {
		t.Fatalf("options shown %v: want asked, without an always", kinds)
	}
}
