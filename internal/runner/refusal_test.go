package runner

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
	transcripts "github.com/hubdev/hub/internal/transcript"
)

// A tool call the native loop refuses itself (the hard deny list, a deny
// rule, a PreToolUse hook; even under --approve all), or that the run's
// gate refuses (--approve), counts as a CLI agent's refusal does: exit 6,
// the call in denied[] with its reason, a jsonl permission line naming
// what decided, and the decision in the session's transcript (the native
// loop keeps its own, so the gate's decisions reach it with the answer).
func TestRun_NativeLoopRefusalIsADenial(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	deny, err := hooks.New(map[string][]config.HookConfig{"PreToolUse": {{Command: proctest.ShellCommand("err:no listing here\n", "exit:2")}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, command string
		rules         config.PermissionsConfig
		hooks         *hooks.Runner
		approve       conversation.Approve
		by, reason    string
	}{
		{name: "hard deny", command: "rm -rf ~", by: "hard deny", reason: "hard deny: "},
		{name: "deny rule", command: "git push origin main", rules: config.PermissionsConfig{Rules: []config.PermissionRule{
			{Tool: "bash", Command: "git push", Decision: "deny"}}}, by: "rule", reason: "denied by permissions.rules[0]"},
		{name: "hook", command: "ls", hooks: deny, by: "hook", reason: "no listing here"},
		{name: "--approve", command: "touch x", approve: conversation.ApproveNone, by: "--approve", reason: "--approve none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":` + quote(tt.command) + `}`}}},
				mockllm.OpenAITurn{Text: "I will not do that"})
			defer srv.Close()
			dir, retries := t.TempDir(), 0
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "openai", BaseURL: srv.URL, Model: "mock-model", APIKey: "k", Stream: true},
				openai.Options{MaxRetries: &retries, TranscriptDir: dir, Hooks: tt.hooks}))
			var out, errb bytes.Buffer
			s := Run(context.Background(), Options{Registry: reg, Agent: "openai", Cwd: t.TempDir(), Prompt: "go", Format: FormatJSONL,
				Approve: cmp.Or(tt.approve, conversation.ApproveAll), Rules: tt.rules, Stdout: &out, Stderr: &errb, Timeout: 20 * time.Second, Grace: 2 * time.Second,
				StopAll: func() {}, SkillsUserDir: t.TempDir()})
			if s.ExitCode != conversation.ExitDenied || len(s.Denied) != 1 || !strings.Contains(s.Denied[0].Reason, tt.reason) {
				t.Fatalf("exit %d, denied %+v, want exit 6 and one denial ~%q\n%s", s.ExitCode, s.Denied, tt.reason, errb.String())
			}
			if !hasLine(out.String(), `"type":"permission"`, `"by":"`+tt.by+`"`, tt.reason) {
				t.Errorf("no permission line by %q ~%q:\n%s", tt.by, tt.reason, out.String())
			}
			recs, err := transcripts.Read(dir, s.AgentSessionID)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range recs {
				if e := r.Event; e != nil && e.Type == adapters.EventDecision && !e.Decision.Allowed && e.Decision.By == tt.by {
					found = true
				}
			}
			if !found {
				t.Errorf("the transcript does not record the refusal by %q", tt.by)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// hasLine reports whether one line of out holds every fragment.
func hasLine(out string, fragments ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		all := true
		for _, f := range fragments {
			all = all && strings.Contains(l, f)
		}
		if all {
			return true
		}
	}
	return false
}
