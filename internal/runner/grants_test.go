package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

// hub run honours a grant the user kept for its project and agent, over
// --approve; with grants = "session" it does not.
func TestRun_HonoursDurableGrant(t *testing.T) {
	for _, tt := range []struct {
		grants string
		want   int
		out    string
	}{
		{"", conversation.ExitOK, "removed\n"},
		{config.GrantsSession, conversation.ExitDenied, "skipped\n"},
	} {
		t.Run("grants="+tt.grants, func(t *testing.T) {
			cwd := t.TempDir()
			store := permission.OpenGrants(filepath.Join(t.TempDir(), "grants.json"), nil)
			if _, err := store.Add(permission.Grant{Project: cwd, Agent: replay.Name, Tool: "execute", Scope: "=rm -rf build",
				Expires: time.Now().Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
			reg := adapters.NewRegistry()
			reg.Register(replay.New(filepath.Join("testdata", "replay", "denied.jsonl")))
			var out, errb bytes.Buffer
			s := Run(context.Background(), Options{Registry: reg, Agent: replay.Name, Cwd: cwd, Prompt: "go", Format: FormatText,
				Approve: conversation.ApproveNone, Grants: store, Rules: config.PermissionsConfig{Grants: tt.grants},
				Stdout: &out, Stderr: &errb, Grace: time.Second, StopAll: func() {}, SkillsUserDir: t.TempDir()})
			if s.ExitCode != tt.want || out.String() != tt.out {
				t.Fatalf("exit %d, stdout %q; want %d %q\nstderr: %s", s.ExitCode, out.String(), tt.want, tt.out, errb.String())
			}
		})
	}
}
