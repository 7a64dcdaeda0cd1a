package all

import (
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/internal/config"
)

// gemini's folder trust keeps a repository's .gemini/settings.json (stdio
// MCP servers, hooks) and .env from loading until the user trusts the
// folder; hub must not trust it on gemini's behalf unless the user trusted
// the project for the run (--trust-project).
func TestRegistry_GeminiFolderTrustOnlyUnderTrustProject(t *testing.T) {
	tests := []struct {
		name         string
		trustProject bool
		env          map[string]string
		wantEnv      string // GEMINI_CLI_TRUST_WORKSPACE, "" for unset
	}{
		{"untrusted project", false, nil, ""},
		{"--trust-project", true, nil, "true"},
		{"user keeps gemini's check under --trust-project", true, map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "false"}, "false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{Agents: map[string]config.AgentConfig{"gemini": {Env: tt.env}}, TrustProject: tt.trustProject}
			a, err := Registry(cfg, zerolog.Nop()).Get("gemini")
			if err != nil {
				t.Fatal(err)
			}
			g := a.(*acpclient.Adapter)
			if slices.Contains(g.Argv(), "--skip-trust") {
				t.Errorf("argv %q trusts the folder for gemini", g.Argv())
			}
			if got := g.Env()["GEMINI_CLI_TRUST_WORKSPACE"]; got != tt.wantEnv {
				t.Errorf("GEMINI_CLI_TRUST_WORKSPACE = %q, want %q", got, tt.wantEnv)
			}
		})
	}
}
