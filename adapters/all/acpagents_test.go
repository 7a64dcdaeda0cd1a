package all

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/internal/config"
)

func TestRegistry_ACPAgentsFromConfig(t *testing.T) {
	cfg, err := config.Parse("test.toml", []byte(`
[agents.myagent]
protocol = "acp"
command = ["my-agent", "--acp"]
[agents.notacp]
command = "x"
[agents.qodercli]
disabled = true
`))
	if err != nil {
		t.Fatal(err)
	}
	r := Registry(cfg, zerolog.Nop())
	for _, name := range []string{"gemini", "myagent"} {
		if _, err := r.Get(name); err != nil {
			t.Errorf("%s not registered: %v", name, err)
		}
	}
	for _, name := range []string{"notacp", "qodercli"} {
		if _, err := r.Get(name); err == nil {
			t.Errorf("%s registered, want not", name)
		}
	}
}
