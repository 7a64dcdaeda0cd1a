package gemini

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

func TestFallbackArgv_Flags(t *testing.T) {
	tests := []struct {
		name   string
		argv   []string
		resume string
		opts   adapters.SessionOptions
		want   string
	}{
		{"default", DefaultArgv, "", adapters.SessionOptions{}, "gemini -o stream-json -p hi"},
		{"the user's --skip-trust kept", []string{"gemini", "--acp", "--skip-trust"}, "", adapters.SessionOptions{}, "gemini --skip-trust -o stream-json -p hi"},
		{"resume model mode", []string{"/opt/gemini", "--acp", "--debug"}, "s1", adapters.SessionOptions{Model: "m", Mode: "autoEdit"},
			"/opt/gemini --debug -o stream-json -m m --approval-mode auto_edit --resume s1 -p hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(FallbackArgv(tt.argv, "hi", tt.resume, tt.opts), " "); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNew_ConfigOverrides(t *testing.T) {
	a := New(config.AgentConfig{}, "", zerolog.Nop())
	if a.Name() != "gemini" || a.Capabilities().TestedVersions != TestedVersions || !a.Capabilities().Permissions {
		t.Fatalf("caps = %+v", a.Capabilities())
	}
}
