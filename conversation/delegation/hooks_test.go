package delegation

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestMain(m *testing.M) { proctest.Main(m, nil) }

// scriptFile is a replay agent's script of lines.
func scriptFile(t *testing.T, lines ...string) string {
	p := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A delegate's stream is observed by the hooks like any CLI agent's: its
// tool call reaches PostToolUse, and a hook that fails is a warning of
// the result.
func TestDelegate_HooksObserveTheDelegate(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	h, err := hooks.New(map[string][]config.HookConfig{
		"PostToolUse": {{Command: proctest.ShellCommand("stdin>>:" + log)}},
		"Stop":        {{Command: proctest.ShellCommand("err:notifier down\n", "exit:1")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := adapters.NewRegistry()
	reg.Register(replay.New(scriptFile(t,
		`{"event":{"type":"tool_call","tool":{"id":"t1","name":"Edit","title":"Edit a.go","kind":"edit","status":"pending"}}}`,
		`{"event":{"type":"tool_update","tool":{"id":"t1","status":"completed"}}}`,
		`{"event":{"type":"text","text":"Done."}}`)))
	d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Hooks: h})
	defer d.Close()
	res, err := d.Delegate(context.Background(), Request{Agent: "replay", Prompt: "fix a.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("PostToolUse did not run: %v", err)
	}
	var post hooks.Input
	if err := json.Unmarshal(b, &post); err != nil || post.Event != hooks.PostToolUse || post.Agent != "replay" || post.Tool != "Edit" {
		t.Fatalf("PostToolUse input %s (%v)", b, err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "notifier down") {
		t.Fatalf("warnings %q, want the failed Stop hook", res.Warnings)
	}
}
