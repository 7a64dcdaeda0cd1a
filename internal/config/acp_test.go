package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse_ACPSettings(t *testing.T) {
	tests := []struct {
		name, toml string
		warm       int
		warmSet    bool
		idle       time.Duration
		idleSet    bool
		wantErr    bool
	}{
		{name: "unset keeps hub's defaults", toml: ""},
		{name: "cap and timeout", toml: "[acp]\nwarm_agents = 2\nidle_timeout = \"90s\"\n", warm: 2, warmSet: true, idle: 90 * time.Second, idleSet: true},
		{name: "off and never", toml: "[acp]\nwarm_agents = 0\nidle_timeout = \"0\"\n", warmSet: true, idleSet: true},
		{name: "bad duration", toml: "[acp]\nidle_timeout = \"soon\"\n", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("config.toml", []byte(tc.toml))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if (c.ACP.WarmAgents != nil) != tc.warmSet || (tc.warmSet && *c.ACP.WarmAgents != tc.warm) {
				t.Errorf("warm_agents = %v, want %d (set %v)", c.ACP.WarmAgents, tc.warm, tc.warmSet)
			}
			if c.ACP.IdleTimeout.Set != tc.idleSet || c.ACP.IdleTimeout.Duration != tc.idle {
				t.Errorf("idle_timeout = %+v, want %v (set %v)", c.ACP.IdleTimeout, tc.idle, tc.idleSet)
			}
		})
	}
}

func TestParse_FallbackProviderTimeout(t *testing.T) {
	tests := []struct {
		name, toml string
		want       time.Duration
		wantErr    bool
	}{
		{name: "unset keeps hub's default", toml: ""},
		{name: "set", toml: "[fallback]\nprovider_timeout = \"5s\"\n", want: 5 * time.Second},
		{name: "bad duration", toml: "[fallback]\nprovider_timeout = \"soon\"\n", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("config.toml", []byte(tc.toml))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && (c.Fallback.ProviderTimeout.Duration != tc.want || len(c.Warnings) > 0) {
				t.Fatalf("provider_timeout = %+v, warnings %v; want %v", c.Fallback.ProviderTimeout, c.Warnings, tc.want)
			}
		})
	}
}

// One bad permission rule stops hub, naming file and rule; it never drops
// the valid rules silently.
func TestParse_BadPermissionRuleFailsClosed(t *testing.T) {
	toml := "[[permissions.rules]]\ntool = \"bash\"\ncommand = \"rm\"\ndecision = \"deny\"\n\n[[permissions.rules]]\ntool = \"bash\"\ncommand = \"npm run deploy\"\ndecision = \"alow\"\n"
	_, err := Parse("/p/.hub/config.toml", []byte(toml))
	if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "permissions.rules[1]") || !strings.Contains(err.Error(), "/p/.hub/config.toml") {
		t.Fatalf("err = %v; want the file and the bad rule named", err)
	}
}

// A TOML error names the line that holds the mistake.
func TestParse_ErrorNamesTheRightLine(t *testing.T) {
	tests := []struct{ toml, line string }{
		{"default_agent = \"claude\"\n[agents.claude\ncommand = \"x\"\n", ":2:"},
		{"default_agent = \"claude\"\nfoo = \n", ":2:"},
		{"a = 1\nb = 2\nc = [1,\n", ":3:"},
	}
	for _, tc := range tests {
		_, err := Parse("c.toml", []byte(tc.toml))
		if err == nil || !strings.Contains(err.Error(), "c.toml"+tc.line) {
			t.Errorf("%q: %v, want line %s", tc.toml, err, tc.line)
		}
	}
}

func TestParse_ACPMaxPrompt(t *testing.T) {
	tests := []struct {
		name, toml string
		want       int
	}{
		{"unset keeps hub's default", "", 0},
		{"set", "[acp]\nmax_prompt_mb = 2\n", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("config.toml", []byte(tc.toml))
			if err != nil {
				t.Fatal(err)
			}
			if c.ACP.MaxPromptMB != tc.want {
				t.Fatalf("max_prompt_mb = %d, want %d", c.ACP.MaxPromptMB, tc.want)
			}
		})
	}
}
