package acp

import (
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters/replay"
)

// A client may pipeline session/set_config_option and session/prompt
// without waiting for the first answer; the prompt must see the change.
func TestConfigOption_PipelinedBeforePromptApplies(t *testing.T) {
	other := replay.New("")
	c := newClient(t, "", func(o *Options) { o.Registry.Register(named{other, "other"}) })
	c.init(schema.ClientCapabilities{})
	for i := range 20 {
		sid := c.newSession(t.TempDir())
		set := c.async("session/set_config_option", map[string]any{"sessionId": sid, "configId": "agent", "value": "other"})
		prompt := c.async("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("x")}})
		if m := c.wait(set); m.Error != nil {
			t.Fatalf("set_config_option: %+v", m.Error)
		}
		if m := c.wait(prompt); m.Error != nil {
			t.Fatalf("prompt: %+v", m.Error)
		}
		if got := len(startsOf(t, c, "other")); got != i+1 {
			t.Fatalf("session %d: the pipelined prompt ran before the agent switch (%d starts of the new agent)", i, got)
		}
	}
}
