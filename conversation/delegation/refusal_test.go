package delegation

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mockllm"
)

// A delegate's tool call the native loop refuses itself (the hard deny
// list, a deny rule) is in the result's Denied with its reason, as one the
// delegate's gate refuses is; even under --approve all.
func TestDelegate_NativeRefusalIsDenied(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	for _, tt := range []struct {
		name, command, reason string
		rules                 config.PermissionsConfig
	}{
		{"hard deny", `rm -rf ~`, "hard deny: ", config.PermissionsConfig{}},
		{"deny rule", `git push origin main`, "denied by permissions.rules[0]", config.PermissionsConfig{Rules: []config.PermissionRule{
			{Tool: "bash", Command: "git push", Decision: "deny"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mock := mockllm.NewOpenAIServer(
				mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"` + tt.command + `"}`}}},
				mockllm.OpenAITurn{Text: "Refused."})
			defer mock.Close()
			reg := adapters.NewRegistry()
			reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: mock.URL, Model: "mock-model", Local: true, Stream: true},
				openai.Options{IdleTimeout: 10 * time.Second}))
			d := New(Options{Registry: reg, Cwd: t.TempDir(), Approve: conversation.ApproveAll, Rules: tt.rules, Log: zerolog.Nop()})
			defer d.Close()
			r, err := d.Delegate(context.Background(), Request{Agent: "native", Prompt: "clean up"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Denied) != 1 || !strings.Contains(r.Denied[0], tt.reason) {
				t.Fatalf("denied %q, want one ~%q", r.Denied, tt.reason)
			}
		})
	}
}
