package all

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/internal/config"
)

func TestRegistry_ACPAgentsFromConfig(t *testing.T) {
	cfg, err := config.Parse("test.toml", []byte(`
[agents.myagent]
protocol = "acp"
command = ["my-agent", "--acp"]
[agents.pasted-zed]            # Zed's agent_servers entry, pasted as is
type = "custom"
command = "goose"
args = ["acp"]
[agents.pasted-jetbrains]      # JetBrains acp.json entry: no type
command = "opencode"
args = ["acp"]
[agents.claude]                # a built-in name keeps its adapter...
command = ["/opt/claude"]
[agents.codex]                 # ...unless the entry says acp
protocol = "acp"
command = ["codex-acp"]
[agents.registry-only]
type = "registry"
[agents.qodercli]
disabled = true
`))
	if err != nil {
		t.Fatal(err)
	}
	r := Registry(cfg, zerolog.Nop())
	tests := []struct {
		name     string
		want     bool
		wantsACP bool
	}{
		{"gemini", true, true}, // gemini speaks ACP natively
		{"myagent", true, true},
		{"pasted-zed", true, true},
		{"pasted-jetbrains", true, true},
		{"claude", true, false},
		{"codex", true, true},
		{"registry-only", false, false},
		{"qodercli", false, false},
	}
	for _, tt := range tests {
		a, err := r.Get(tt.name)
		if (err == nil) != tt.want {
			t.Errorf("%s: registered = %v, want %v", tt.name, err == nil, tt.want)
			continue
		}
		if _, isACP := a.(*acpclient.Adapter); err == nil && isACP != tt.wantsACP {
			t.Errorf("%s: generic ACP adapter = %v, want %v", tt.name, isACP, tt.wantsACP)
		}
	}
}
