package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
)

// The agent starts while the prompt is still being read from stdin.
func TestRun_AgentStartsWhileThePromptIsRead(t *testing.T) {
	tests := []struct {
		name     string
		readErr  error
		wantCode int
	}{
		{name: "prompt read", wantCode: conversation.ExitOK},
		{name: "prompt read fails", readErr: errors.New("stdin was empty"), wantCode: conversation.ExitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true}, started: started,
				script: steps(text("answer"), done(adapters.StopEndTurn))}
			s, _, _ := runFake(t, context.Background(), a, func(o *Options) {
				o.Prompt = ""
				o.ReadPrompt = func() (string, error) {
					select {
					case <-started:
					case <-time.After(time.Minute): // a hang guard, not a timing
						return "", errors.New("the agent was not started before the prompt was read")
					}
					return "from stdin", tc.readErr
				}
			})
			if s.ExitCode != tc.wantCode {
				t.Fatalf("exit %d (%s), want %d", s.ExitCode, s.Error, tc.wantCode)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if tc.readErr == nil && (len(a.prompt) != 1 || a.prompt[0].Text != "from stdin") {
				t.Errorf("prompt %+v, want the text read from stdin", a.prompt)
			}
			if tc.readErr != nil && !a.closed {
				t.Error("the started agent was left running after the prompt could not be read")
			}
		})
	}
}

// --approve all does not lift the hard deny list.
func TestRun_HardDenyBeatsApproveAll(t *testing.T) {
	tool := adapters.ToolCall{ID: "rm1", Title: "rm -rf ~", Kind: adapters.KindExecute, RawInput: []byte(`{"command":"bash -lc 'rm -rf ~'"}`)}
	ev := adapters.Event{Type: adapters.EventPermission, Permission: adapters.NewPermissionRequest(tool, nil)}
	a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true}, script: steps(ev, done(adapters.StopEndTurn))}
	s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.Approve = conversation.ApproveAll })
	if s.ExitCode != conversation.ExitDenied || len(s.Denied) != 1 || s.Denied[0].Reason == "--approve all" {
		t.Fatalf("exit %d, denied %+v; want exit 6 with the deny list's reason", s.ExitCode, s.Denied)
	}
}

// hub run decides every request in one order: deny rules beat --allow-tool
// and --approve all; an allow pattern lifts --approve read-only for its
// command only; each denial names its reason.
func TestRun_OneEvaluationOrder(t *testing.T) {
	sh := func(id, cmd string) adapters.Event {
		tool := adapters.ToolCall{ID: id, Title: cmd, Name: "Bash", Kind: adapters.KindExecute, RawInput: []byte(`{"command":"` + cmd + `"}`)}
		return adapters.Event{Type: adapters.EventPermission, Permission: adapters.NewPermissionRequest(tool, nil)}
	}
	rules := config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "bash", Command: "npm run deploy", Decision: "deny"}}}
	tests := []struct {
		name    string
		approve conversation.Approve
		allow   []string
		cmd     string
		denied  string // the denial's reason, "" when allowed
	}{
		{"deny rule beats approve all", conversation.ApproveAll, nil, "npm run deploy", "denied by permissions.rules[0]"},
		{"deny rule beats an allow pattern", conversation.ApproveAll, []string{"Bash(npm run:*)"}, "npm run deploy", "denied by permissions.rules[0]"},
		{"allow pattern lifts read-only", conversation.ApproveReadOnly, []string{"Bash(go test:*)"}, "go test ./...", ""},
		{"only its command", conversation.ApproveReadOnly, []string{"Bash(go test:*)"}, "rm -rf build", "--approve read-only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true}, script: steps(sh("t1", tc.cmd), done(adapters.StopEndTurn))}
			s, _, _ := runFake(t, context.Background(), a, func(o *Options) { o.Approve, o.AllowTools, o.Rules = tc.approve, tc.allow, rules })
			switch {
			case tc.denied == "" && (s.ExitCode != conversation.ExitOK || len(s.Denied) != 0):
				t.Fatalf("exit %d, denied %+v; want it allowed", s.ExitCode, s.Denied)
			case tc.denied != "" && (s.ExitCode != conversation.ExitDenied || len(s.Denied) != 1 || s.Denied[0].Reason != tc.denied):
				t.Fatalf("exit %d, denied %+v; want exit 6 denied by %q", s.ExitCode, s.Denied, tc.denied)
			}
		})
	}
}

// A skill's note is told once per run, also when fallback agents take
// the turn over, and the summary carries it once.
func TestRun_SkillNotesOncePerRun(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base, _ := filepath.Abs("../../testdata/skills")
	first := &fakeAdapter{name: "first", startErr: fmt.Errorf("x: %w", adapters.ErrNotInstalled)}
	s, _, stderr := runFake(t, context.Background(), first, func(o *Options) {
		o.Registry.Register(&fakeAdapter{name: "second", startErr: fmt.Errorf("y: %w", adapters.ErrNotInstalled)})
		o.Registry.Register(&fakeAdapter{name: "third", script: steps(text("ok"), done(adapters.StopEndTurn))})
		o.Cwd, o.SkillsUserDir, o.Skills, o.Fallback = filepath.Join(base, "project"), filepath.Join(base, "user"), []string{"pdf-tools"}, []string{"second", "third"}
	})
	const note = "allowed-tools Read Bash(pdftotext:*) ignored"
	var inSummary int
	for _, w := range s.Warnings {
		inSummary += strings.Count(w, note)
	}
	if s.Agent != "third" || strings.Count(stderr, note) != 1 || inSummary != 1 {
		t.Fatalf("agent %s, summary warnings %q, stderr:\n%s\nwant the note once in each", s.Agent, s.Warnings, stderr)
	}
}

// A --skill's allowed-tools allow its commands only.
func TestRun_SkillAllowedToolsAllowOnlyTheirCommands(t *testing.T) {
	base, _ := filepath.Abs("../../testdata/skills")
	for cmd, allowed := range map[string]bool{"pdftotext -layout a.pdf out.txt": true, "pdfinfo a.pdf": false} {
		tool := adapters.ToolCall{ID: "t1", Title: cmd, Name: "Bash", Kind: adapters.KindExecute, RawInput: []byte(`{"command":"` + cmd + `"}`)}
		ev := adapters.Event{Type: adapters.EventPermission, Permission: adapters.NewPermissionRequest(tool, nil)}
		a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true, Skills: "prompt"}, script: steps(ev, done(adapters.StopEndTurn))}
		s, _, _ := runFake(t, context.Background(), a, func(o *Options) {
			o.Cwd, o.SkillsUserDir, o.Skills = filepath.Join(base, "project"), filepath.Join(base, "user"), []string{"pdf-tools"}
			o.TrustProject = true
		})
		if got := len(s.Denied) == 0; got != allowed {
			t.Errorf("%q: denied %+v; the skill allows pdftotext only", cmd, s.Denied)
		}
	}
}

// A project skill hub does not trust yet is instructions only: its
// allowed-tools allow nothing, under --approve none or read-only, and the
// run says so once; the text output names what decided each request.
func TestRun_UntrustedProjectSkillAllowsNothing(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base, _ := filepath.Abs("../../testdata/skills")
	cmd := "pdftotext -layout a.pdf out.txt"
	tool := adapters.ToolCall{ID: "t1", Title: cmd, Name: "Bash", Kind: adapters.KindExecute, RawInput: []byte(`{"command":"` + cmd + `"}`)}
	for _, approve := range []conversation.Approve{conversation.ApproveNone, conversation.ApproveReadOnly} {
		t.Run(string(approve), func(t *testing.T) {
			ev := adapters.Event{Type: adapters.EventPermission, Permission: adapters.NewPermissionRequest(tool, nil)}
			a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true, Skills: "prompt"}, script: steps(ev, done(adapters.StopEndTurn))}
			s, _, _ := runFake(t, context.Background(), a, func(o *Options) {
				o.Cwd, o.SkillsUserDir, o.Skills, o.Approve = filepath.Join(base, "project"), filepath.Join(base, "user"), []string{"pdf-tools"}, approve
			})
			if len(s.Denied) != 1 || s.Denied[0].Reason != "--approve "+string(approve) {
				t.Errorf("denied %+v: the untrusted skill's allowed-tools must not allow %q", s.Denied, cmd)
			}
			if len(s.Warnings) == 0 {
				t.Error("no warning on the ignored allowed-tools")
			}
		})
	}
	ev := adapters.Event{Type: adapters.EventPermission, Permission: adapters.NewPermissionRequest(tool, nil)}
	a := &fakeAdapter{name: "fake", caps: adapters.Capabilities{Permissions: true}, script: steps(ev, done(adapters.StopEndTurn))}
	s, _, stderr := runFake(t, context.Background(), a, func(o *Options) {
		o.Approve, o.AllowTools = conversation.ApproveNone, []string{"Bash(pdftotext:*)"}
	})
	if len(s.Denied) != 0 || !strings.Contains(stderr, "--allow-tool Bash(pdftotext:*)") || strings.Contains(stderr, "(--approve none)") {
		t.Errorf("denied %+v, stderr %q: the permission line must name the rule that allowed it, not --approve none", s.Denied, stderr)
	}
}
