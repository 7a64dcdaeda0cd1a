package acp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// Each session takes its rules and notice from the config of its own cwd,
// not of the directory hub started in: a deny rule of the repository a
// session works in holds there, and only there.
func TestSession_RulesAndNoticeOfItsOwnCwd(t *testing.T) {
	strict, plain := t.TempDir(), t.TempDir()
	deny := config.PermissionsConfig{Rules: []config.PermissionRule{{Tool: "bash", Command: "npm run deploy", Decision: "deny"}}}
	c := newClient(t, scriptFile(t, shellStep("t1", "npm run deploy", "ran;", "refused;")), func(o *Options) {
		o.Settings = func(cwd string) (Settings, error) {
			if cwd == strict {
				return Settings{Permissions: deny, Notice: "strict notice"}, nil
			}
			return Settings{Notice: "plain notice"}, nil
		}
	})
	var asked atomic.Int32
	c.perm = func(schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
		asked.Add(1)
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}, nil
	}
	c.init(schema.ClientCapabilities{})
	inStrict, inPlain := c.newSession(strict), c.newSession(plain)
	c.prompt(inStrict, "deploy")
	if got := c.agentText(inStrict); !strings.Contains(got, "refused;") || asked.Load() != 0 || !strings.Contains(got, "strict notice") {
		t.Fatalf("session in the strict repository: %q, editor asked %d times; want refused by its deny rule, its notice", got, asked.Load())
	}
	c.prompt(inPlain, "deploy")
	if got := c.agentText(inPlain); !strings.Contains(got, "ran;") || asked.Load() != 1 || strings.Contains(got, "strict notice") {
		t.Fatalf("session in the plain repository: %q, editor asked %d times; want the editor asked, no strict notice", got, asked.Load())
	}
}

// A config hub cannot use in a session's cwd fails that session with the
// reason; the server goes on serving others.
func TestNewSession_UnusableConfigOfItsCwdFailsIt(t *testing.T) {
	broken, fine := t.TempDir(), t.TempDir()
	c := newClient(t, "", func(o *Options) {
		o.Settings = func(cwd string) (Settings, error) {
			if cwd == broken {
				return Settings{}, errors.New("broken config here")
			}
			return Settings{}, nil
		}
	})
	c.init(schema.ClientCapabilities{})
	if _, e := c.call("session/new", schema.NewSessionRequest{Cwd: broken, McpServers: []schema.McpServer{}}); e == nil || !strings.Contains(e.Message, "broken config here") {
		t.Fatalf("session/new in a broken project: %+v", e)
	}
	c.newSession(fine)
}

// A session's cwd must be an absolute path to an existing directory:
// anything else is invalid params, for every method that takes one.
func TestSessionCwd_MustBeAnExistingDirectory(t *testing.T) {
	c := newClient(t, "")
	sid, _ := c.start(t)
	c.prompt(sid, "hi")
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cwd := range []string{"", "relative/dir", filepath.Join(dir, "missing"), file} {
		for _, m := range []string{"session/new", "session/load", "session/resume", "session/fork"} {
			params := map[string]any{"cwd": cwd, "mcpServers": []any{}}
			if m != "session/new" {
				params["sessionId"] = sid
			}
			if _, e := c.call(m, params); e == nil || e.Code != schema.CodeInvalidParams {
				t.Errorf("%s cwd %q: got %+v, want invalid params", m, cwd, e)
			}
		}
	}
}
