package acp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// TestWarmStart_KilledAgentFailsTheFirstPromptClearly kills the warm
// agent process before any prompt: that prompt must fail with an error
// naming the agent, not hang or answer end_turn.
func TestWarmStart_KilledAgentFailsTheFirstPromptClearly(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := proctest.Install(t, dir, "claude", "pid:"+pidFile, "hang")
	a := claude.New(config.AgentConfig{Command: config.Command{script}}, zerolog.Nop())
	c := newClient(t, "", func(o *Options) {
		o.Registry = adapters.NewRegistry()
		o.Registry.Register(a)
		o.DefaultAgent = "claude"
	})
	sid, _ := c.start(t)
	var pid int
	c.waitFor(t, func() bool {
		b, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	_, e := c.call("session/prompt", promptReq(sid, "hi"))
	if e == nil {
		t.Fatal("the first prompt on a killed warm agent succeeded")
	}
	t.Logf("answer: %s", e.Message)
	if !strings.Contains(e.Message, "claude") || strings.Contains(e.Message, "\n") {
		t.Fatalf("error %q: want one line that names the agent", e.Message)
	}
}
