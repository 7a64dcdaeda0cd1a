//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// A save while a slow UserPromptSubmit hook judges a prompt (a fork, an
// option change) keeps nothing of the prompt: the hook then blocks it, and
// neither session/load nor the fork replays it. The hook waits on a FIFO
// the test holds: opening it is the hook's start, closing it lets it judge.
func TestSession_SaveDuringPromptHookKeepsNoBlockedPrompt(t *testing.T) {
	for name, save := range map[string]func(c *tclient, sid, cwd string) string{
		"fork": func(c *tclient, sid, cwd string) string { return fork(t, c, sid, cwd, "") },
		"option change": func(c *tclient, sid, _ string) string {
			c.must("session/set_config_option", schema.SetSessionConfigOptionRequest{SessionID: sid, ConfigID: "handover", Value: json.RawMessage(`"none"`)}, nil)
			return ""
		},
	} {
		t.Run(name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "judge")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			h, err := hooks.New(map[string][]config.HookConfig{"UserPromptSubmit": {{Command: proctest.ShellCommand("cat:"+fifo, "exitifstdin:SECRET:2:no secrets")}}})
			if err != nil {
				t.Fatal(err)
			}
			c := newClient(t, scriptFile(t, `{"event":{"type":"text","text":"done"}}`), func(o *Options) { o.Settings = everywhere(Settings{Hooks: h}) })
			sid, cwd := c.start(t)
			blocked := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("my SECRET")}})
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the hook reads it
			if err != nil {
				t.Fatal(err)
			}
			forked := save(c, sid, cwd)
			_ = w.Close()
			if m := c.wait(blocked); m.Error == nil {
				t.Fatal("the hook did not block the prompt")
			}
			for _, id := range []string{sid, forked} {
				if id == "" {
					continue
				}
				if got := userTexts(t, c, id, cwd); strings.Contains(got, "SECRET") {
					t.Errorf("session %s replays the blocked prompt: %q", id, got)
				}
			}
		})
	}
}
