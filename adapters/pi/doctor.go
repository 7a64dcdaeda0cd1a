package pi

import (
	"path/filepath"

	"github.com/hubdev/hub/adapters/agentspec"
)

// Doctor is what `hub doctor` checks for pi: one tested range for the
// doctor and the warning about records hub does not know.
var Doctor = agentspec.Spec{
	Name: Name, Bin: "pi", Package: "@mariozechner/pi-coding-agent", Tested: ">=0.73.0 <2.0.0", Verified: TestedVersions,
	ConfigDir: agentspec.DirFrom("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent")), SkillsDir: agentspec.Sub("skills"),
	AuthFiles: func(c, _ string) []string { return []string{filepath.Join(c, "auth.json")} },
	Auth:      piAuth,
	LoginFix:  "run `pi` then /login, or set a provider key such as ANTHROPIC_API_KEY",
	EnvVars:   []string{"PI_CODING_AGENT_DIR", "ANTHROPIC_OAUTH_TOKEN", "OPENROUTER_API_KEY", "GROQ_API_KEY", "XAI_API_KEY", "MISTRAL_API_KEY", "CEREBRAS_API_KEY"},
}

var piKeyEnv = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "XAI_API_KEY", "MISTRAL_API_KEY", "CEREBRAS_API_KEY"}

func piAuth(env agentspec.Env, cfgDir, _ string) (agentspec.Auth, []string) {
	p := filepath.Join(cfgDir, "auth.json")
	if m := agentspec.ReadJSON(p); len(m) > 0 {
		// Entries are {"type":"oauth"} (a subscription) or {"type":"api_key"};
		// pi prefers them over env vars.
		kinds := map[string]bool{}
		for _, v := range m {
			e, _ := v.(map[string]any)
			t, _ := e["type"].(string)
			kinds[t] = true
		}
		switch {
		case len(kinds) == 1 && kinds["oauth"]:
			return agentspec.Auth{State: agentspec.AuthSubscription, Source: p}, nil
		case len(kinds) == 1 && kinds["api_key"]:
			return agentspec.Auth{State: agentspec.AuthAPIKey, Source: p}, nil
		}
		return agentspec.Auth{State: agentspec.AuthLoggedIn, Source: p}, nil
	}
	for _, k := range piKeyEnv {
		if env(k) != "" {
			return agentspec.Auth{State: agentspec.AuthAPIKey, Source: k}, nil
		}
	}
	if m := agentspec.ReadJSON(filepath.Join(cfgDir, "models.json")); len(m) > 0 {
		return agentspec.Auth{State: agentspec.AuthAPIKey, Source: filepath.Join(cfgDir, "models.json")}, nil
	}
	return agentspec.Auth{State: agentspec.AuthNone, Source: ""}, nil
}
