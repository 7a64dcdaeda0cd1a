package acp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/permission"
)

func selectID(id string) func(schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
	return func(schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		return schema.RequestPermissionResponse{Outcome: schema.RequestPermissionOutcome{Outcome: "selected", OptionID: id}}, nil
	}
}

// The editor is offered a durable "always allow" named for what it
// covers; picked, it holds in a new hub process for the same command
// shape, and a broader command is asked again.
func TestPermission_GrantKeptForNewSessions(t *testing.T) {
	grants := permission.OpenGrants(filepath.Join(t.TempDir(), "grants.json"), nil)
	withGrants := func(o *Options) { o.Grants = grants }
	cwd := t.TempDir()

	first := newClient(t, scriptFile(t, shellStep("a", "go test ./a", "ran a;", "refused a;")), withGrants)
	var offered []schema.PermissionOption
	first.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		offered = p.Options
		return selectID(grantOptionID)(p)
	}
	first.init(schema.ClientCapabilities{})
	sid := first.newSession(cwd)
	first.prompt(sid, "test")
	if got := first.agentText(sid); got != "ran a;" {
		t.Fatalf("first session: %q", got)
	}
	i := slices.IndexFunc(offered, func(o schema.PermissionOption) bool { return o.OptionID == grantOptionID })
	if i < 1 || offered[i].Kind != "allow_always" || offered[i-1].Kind != "allow_always" ||
		offered[i].Name != "Always allow `go test …` in this project for 7 days" {
		t.Fatalf("options offered: %+v", offered)
	}

	second := newClient(t, scriptFile(t, shellStep("b", "go test ./b", "ran b;", "refused b;"), `{"turn":true}`,
		shellStep("c", "go test -exec evil ./b", "ran c;", "refused c;")), withGrants)
	var mu sync.Mutex
	var asked []string
	second.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		mu.Lock()
		asked = append(asked, p.ToolCall.ToolCallID)
		mu.Unlock()
		return selectKind("reject_once")(p)
	}
	second.init(schema.ClientCapabilities{})
	sid = second.newSession(cwd)
	second.prompt(sid, "1")
	second.prompt(sid, "2")
	mu.Lock()
	defer mu.Unlock()
	if got := second.agentText(sid); got != "ran b;refused c;" || strings.Join(asked, ",") != "c" {
		t.Fatalf("new process: said %q, editor asked for %v (want only c)", got, asked)
	}
}

// No durable option where grants are off, where the agent offers no
// "always" at all, or for a command hub cannot read.
func TestPermission_GrantOptionOnlyWhereItFits(t *testing.T) {
	onlyOnce := `{"permission":{"tool":{"id":"t1","name":"Bash","title":"go test","kind":"execute","rawInput":{"command":"go test"}},` +
		`"options":[{"id":"yes","name":"Yes","kind":"allow_once"},{"id":"no","name":"No","kind":"reject_once"}]},` +
		`"allowed":[{"event":{"type":"text","text":"ran"}}],"rejected":[{"event":{"type":"text","text":"skipped"}}]}`
	tests := []struct {
		name, step string
		perms      config.PermissionsConfig
	}{
		{"grants = session", shellStep("t1", "go test ./...", "ran", "skipped"), config.PermissionsConfig{Grants: "session"}},
		{"agent offers no always", onlyOnce, config.PermissionsConfig{}},
		{"unclear command", shellStep("t1", "$(echo go) test", "ran", "skipped"), config.PermissionsConfig{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			grants := permission.OpenGrants(filepath.Join(t.TempDir(), "grants.json"), nil)
			c := newClient(t, scriptFile(t, tt.step), func(o *Options) { o.Grants, o.Settings = grants, everywhere(Settings{Permissions: tt.perms}) })
			var offered []schema.PermissionOption
			c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
				offered = p.Options
				return selectKind("reject_once")(p)
			}
			sid, _ := c.start(t)
			c.prompt(sid, "x")
			if len(offered) == 0 || slices.ContainsFunc(offered, func(o schema.PermissionOption) bool { return o.OptionID == grantOptionID }) {
				t.Fatalf("options: %+v", offered)
			}
		})
	}
}

// A grant hub cannot store (a corrupt grants file) is said in the session,
// the file is left as it was, and the call still runs this once.
func TestPermission_GrantNotKeptIsSaid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, scriptFile(t, shellStep("a", "go test ./a", "ran a;", "refused a;")),
		func(o *Options) { o.Grants = permission.OpenGrants(path, nil) })
	c.perm = selectID(grantOptionID)
	sid, _ := c.start(t)
	c.prompt(sid, "x")
	got := c.agentText(sid)
	if !strings.Contains(got, "could not keep this grant") || !strings.Contains(got, "ran a;") {
		t.Fatalf("session said %q", got)
	}
	if raw, _ := os.ReadFile(path); string(raw) != "garbage" {
		t.Fatalf("the corrupt grants file was rewritten: %q", raw)
	}
}
