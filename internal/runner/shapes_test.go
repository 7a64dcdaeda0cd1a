package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/permission"
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

func shapeSetup(t *testing.T) ([]permtest.Row, string) {
	t.Helper()
	ws := permtest.Workspace(t)
	rows, err := permtest.Rows(filepath.Join("..", "permission", "testdata", "shapes.txt"), ws)
	if err != nil {
		t.Fatal(err)
	}
	return rows, ws
}

// classOf is how hub run treated a tool call: refused because it must be
// asked (ask), refused otherwise by hub itself (deny), or left to
// --approve (ok).
func classOf(d Denial, denied bool) permtest.Class {
	switch {
	case !denied || strings.HasPrefix(d.Reason, "--approve"):
		return permtest.OK
	case strings.Contains(d.Reason, "asked every time"):
		return permtest.Ask
	}
	return permtest.Deny
}

// shapesHangGuard ends a shapes run that hangs. It is not a timing
// assertion: under Wine a run of every row takes over a minute.
const shapesHangGuard = 10 * time.Minute

// Every row is classified by hub run as by hub acp (acp's
// TestShapes_HubACPClassifiesAlike): hub run --approve all with an ACP
// agent, and hub run with the native loop (under --approve read-only, so
// that no command of the rows runs on this machine).
func TestShapes_HubRunClassifiesAlike(t *testing.T) {
	t.Run("acp agent, --approve all", func(t *testing.T) {
		rows, ws := shapeSetup(t)
		file := filepath.Join(t.TempDir(), "rows.json")
		if err := permtest.WriteRows(file, rows); err != nil {
			t.Fatal(err)
		}
		reg := adapters.NewRegistry()
		reg.Register(acpclient.New(acpclient.Config{Name: "shapes", Argv: []string{os.Args[0], "-test.run=^TestShapesAgent$"},
			Env: map[string]string{permtest.AgentEnv: file}, InitTimeout: 30 * time.Second, StopGrace: time.Second, Logger: zerolog.Nop()}))
		var out, errb bytes.Buffer
		s := Run(context.Background(), Options{Registry: reg, Agent: "shapes", Cwd: ws, Prompt: "go", Approve: conversation.ApproveAll, Format: FormatText,
			Stdout: &out, Stderr: &errb, Timeout: shapesHangGuard, Grace: 2 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
		if s.ExitCode != conversation.ExitDenied {
			t.Fatalf("exit %d (%s), want %d: the refusals are counted\n%s", s.ExitCode, s.Error, conversation.ExitDenied, errb.String())
		}
		denied := map[string]Denial{}
		for _, d := range s.Denied {
			denied[d.ToolID] = d
			if d.Reason == "" || strings.Contains(d.Reason, "\n") {
				t.Errorf("%s: reason %q is not one line", d.ToolID, d.Reason)
			}
		}
		for _, r := range rows {
			d, ok := denied[r.Name]
			if got := classOf(d, ok); got != r.Want {
				t.Errorf("%s %v: %s (%q), want %s", r.Name, r.ToolCall["rawInput"], got, d.Reason, r.Want)
			}
		}
	})
	t.Run("native, --approve read-only", func(t *testing.T) {
		rows, ws := shapeSetup(t)
		calls, native := permtest.NativeCalls(rows)
		srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{ToolCalls: calls}, mockllm.OpenAITurn{Text: "done"})
		defer srv.Close()
		reg := adapters.NewRegistry()
		retries := 0
		reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true, ContextWindow: 1 << 20},
			openai.Options{MaxRetries: &retries, Shell: adapters.ShellSh})) // the rows are sh lines (under Wine the host shell is PowerShell)
		var out, errb bytes.Buffer
		s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: ws, Prompt: "go", Approve: conversation.ApproveReadOnly, Format: FormatJSONL,
			Stdout: &out, Stderr: &errb, Timeout: shapesHangGuard, Grace: 2 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
		if s.ExitCode != conversation.ExitDenied {
			t.Fatalf("exit %d (%s), want %d\n%s", s.ExitCode, s.Error, conversation.ExitDenied, errb.String())
		}
		denied := map[string]Denial{}
		for _, d := range s.Denied {
			denied[d.ToolID] = d
		}
		failed := failedTools(t, out.String())
		for _, r := range native {
			d, ok := denied[r.Name]
			got := classOf(d, ok)
			if !ok && failed[r.Name] {
				got = permtest.Deny // the native loop refused it before asking
			}
			if got != r.Want {
				t.Errorf("%s %s %s: %s (%q), want %s", r.Name, r.NativeTool, r.NativeArgs, got, d.Reason, r.Want)
			}
		}
	})
}

// In hub run an "always" is a durable grant: one kept for an always row's
// shown command (permtest.AlwaysRows) lets that command run, over
// --approve none, and not the row's later one, with an ACP agent and with
// the native loop. PATH is empty: no command found there runs.
func TestShapes_HubRunAlwaysNoBroaderThanShown(t *testing.T) {
	for _, agent := range []string{"shapes", "openai"} {
		t.Run(agent, func(t *testing.T) {
			ws := permtest.Workspace(t)
			t.Setenv("PATH", t.TempDir())
			rows, err := permtest.AlwaysRows(filepath.Join("..", "permission", "testdata", "shapes.txt"), ws)
			if err != nil || len(rows) < 45 {
				t.Fatalf("%d always rows, %v", len(rows), err)
			}
			store := permission.OpenGrants(filepath.Join(t.TempDir(), "grants.json"), nil)
			keeper, err := permission.New(config.PermissionsConfig{})
			if err != nil {
				t.Fatal(err)
			}
			keeper.UseGrants(permission.GrantPolicy{Store: store, Project: config.ProjectRoot(ws), Lifetime: time.Hour, Agent: agent})
			reg := adapters.NewRegistry()
			var calls []mockllm.OpenAIToolCall
			for _, r := range rows {
				tool := adapters.ToolCall{Kind: adapters.KindExecute, RawInput: json.RawMessage(r.NativeArgs)}
				if agent == "openai" {
					tool.Name = r.NativeTool
				}
				if strings.HasSuffix(r.Name, "-shown") {
					if _, err := keeper.Keep(permission.RequestOf(tool, ws)); err != nil {
						t.Fatal(err)
					}
				}
				calls = append(calls, mockllm.OpenAIToolCall{ID: r.Name, Name: r.NativeTool, Args: r.NativeArgs})
			}
			if agent == "shapes" {
				file := filepath.Join(t.TempDir(), "rows.json")
				if err := permtest.WriteRows(file, rows); err != nil {
					t.Fatal(err)
				}
				reg.Register(acpclient.New(acpclient.Config{Name: "shapes", Argv: []string{os.Args[0], "-test.run=^TestShapesAgent$"},
					Env: map[string]string{permtest.AgentEnv: file}, InitTimeout: 30 * time.Second, StopGrace: time.Second, Logger: zerolog.Nop()}))
			} else {
				srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{ToolCalls: calls}, mockllm.OpenAITurn{Text: "done"})
				defer srv.Close()
				retries := 0
				reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true, ContextWindow: 1 << 20},
					openai.Options{MaxRetries: &retries, Shell: adapters.ShellSh})) // the rows are sh lines (under Wine the host shell is PowerShell)
			}
			var out, errb bytes.Buffer
			s := Run(context.Background(), Options{Registry: reg, Agent: agent, Cwd: ws, Prompt: "go", Approve: conversation.ApproveNone, Format: FormatJSONL,
				Grants: store, Stdout: &out, Stderr: &errb, Timeout: shapesHangGuard, Grace: 2 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
			denied := map[string]Denial{}
			for _, d := range s.Denied {
				denied[d.ToolID] = d
			}
			for _, r := range rows {
				d, ok := denied[r.Name]
				if want := strings.HasSuffix(r.Name, "-later"); ok != want || ok && !strings.HasPrefix(d.Reason, "--approve") {
					t.Errorf("%s %s: denied %v (%q), want %v by --approve", r.Name, r.NativeArgs, ok, d.Reason, want)
				}
			}
		})
	}
}

// hub run's native loop on a PowerShell host reads its bash lines as
// PowerShell: a deny rule naming Remove-Item refuses its aliases, a secret
// PowerShell names is refused as one that must be asked, and a grant kept
// for a PowerShell line covers that line, not one copying elsewhere.
func TestShapes_HubRunNativePowerShell(t *testing.T) {
	ws := permtest.Workspace(t)
	t.Setenv("PATH", t.TempDir())
	store := permission.OpenGrants(filepath.Join(t.TempDir(), "grants.json"), nil)
	keeper, err := permission.New(config.PermissionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	keeper.UseGrants(permission.GrantPolicy{Store: store, Project: config.ProjectRoot(ws), Lifetime: time.Hour, Agent: "openai"})
	for _, line := range []string{`Copy-Item .\a .\b`, `git log .\a`} {
		args, _ := json.Marshal(map[string]string{"command": line})
		if _, err := keeper.Keep(permission.RequestOf(adapters.ToolCall{Name: "bash", Kind: adapters.KindExecute, RawInput: args, Shell: adapters.ShellPowerShell}, ws)); err != nil {
			t.Fatal(err)
		}
	}
	rows := []struct {
		name, line string
		by         string // what refused it; "" allowed
	}{
		{"ri", `ri -r build`, "denied by permissions.rules[0]"}, {"del", `del .\build -Recurse`, "denied by permissions.rules[0]"},
		{"home", `Remove-Item -Recurse -Force ~`, "hard deny: "}, {"key", `Get-Content $HOME\.ssh\id_rsa`, "refused: reading secrets"},
		{"granted", `Copy-Item .\a .\b`, ""}, {"other-dest", `Copy-Item .\a .\c`, "--approve none"},
		{"granted-shape", `git log .\b`, ""}, {"push", `git push`, "--approve none"},
	}
	var calls []mockllm.OpenAIToolCall
	for _, r := range rows {
		args, _ := json.Marshal(map[string]string{"command": r.line})
		calls = append(calls, mockllm.OpenAIToolCall{ID: r.name, Name: "bash", Args: string(args)})
	}
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{ToolCalls: calls}, mockllm.OpenAITurn{Text: "done"})
	defer srv.Close()
	reg := adapters.NewRegistry()
	retries := 0
	reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true, ContextWindow: 1 << 20},
		openai.Options{MaxRetries: &retries, Shell: adapters.ShellPowerShell}))
	var out, errb bytes.Buffer
	s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: ws, Prompt: "go", Approve: conversation.ApproveNone, Format: FormatJSONL,
		Rules:  config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "bash", Command: "Remove-Item", Decision: "deny"}}},
		Grants: store, Stdout: &out, Stderr: &errb, Timeout: shapesHangGuard, Grace: 2 * time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
	denied := map[string]Denial{}
	for _, d := range s.Denied {
		denied[d.ToolID] = d
	}
	for _, r := range rows {
		if d, ok := denied[r.name]; ok != (r.by != "") || ok && !strings.HasPrefix(d.Reason, r.by) {
			t.Errorf("%s %q: denied %v (%q), want %q", r.name, r.line, ok, d.Reason, r.by)
		}
	}
}

// failedTools are the ids of the tool calls a jsonl run reports failed.
func failedTools(t *testing.T, jsonl string) map[string]bool {
	t.Helper()
	failed := map[string]bool{}
	lines := strings.Split(strings.TrimSpace(jsonl), "\n")
	for _, l := range lines[:len(lines)-1] { // the last is the summary
		var ev adapters.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("not an event: %q", l)
		}
		if ev.Tool != nil && ev.Tool.Status == adapters.StatusFailed {
			failed[ev.Tool.ID] = true
		}
	}
	return failed
}
