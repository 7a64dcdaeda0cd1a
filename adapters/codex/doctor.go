package codex

import (
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/hubdev/hub/adapters/agentspec"
)

// Doctor is what `hub doctor` checks for codex: one tested range for the
// doctor and the warning about records hub does not know.
var Doctor = agentspec.Spec{
	Name: "codex", Bin: "codex", Package: "@openai/codex", Tested: ">=0.160.0 <1.0.0", Verified: TestedVersions,
	ConfigDir: agentspec.DirFrom("CODEX_HOME", ".codex"), SkillsDir: agentspec.Sub("skills"),
	AuthFiles: func(c, _ string) []string {
		return []string{filepath.Join(c, "auth.json"), filepath.Join(c, "config.toml")}
	},
	Auth:     codexAuth,
	LoginFix: "run `codex login` (or `printenv OPENAI_API_KEY | codex login --with-api-key`)",
	Login:    []string{"login"},
	Logout:   []string{"logout"},
	EnvVars:  []string{"CODEX_HOME", "CODEX_API_KEY", "OPENAI_API_KEY"},
}

// codexLocalProviders are codex's built-in providers that need no login.
var codexLocalProviders = map[string]bool{"oss": true, "ollama": true, "lmstudio": true}

func codexAuth(env agentspec.Env, cfgDir, _ string) (agentspec.Auth, []string) {
	if a, ok := codexProviderAuth(env, cfgDir); ok {
		return a, nil
	}
	p := filepath.Join(cfgDir, "auth.json")
	m := agentspec.ReadJSON(p)
	chatgpt := m["tokens"] != nil
	if env("CODEX_API_KEY") != "" {
		var warns []string
		if chatgpt {
			warns = append(warns, "CODEX_API_KEY is set beside a ChatGPT login ("+p+"): codex bills the key instead of your ChatGPT plan; unset it to use the plan")
		}
		return agentspec.Auth{State: agentspec.AuthAPIKey, Source: "CODEX_API_KEY"}, warns
	}
	if key, _ := m["OPENAI_API_KEY"].(string); key != "" || m["auth_mode"] == "apikey" {
		return agentspec.Auth{State: agentspec.AuthAPIKey, Source: p}, nil
	}
	if chatgpt {
		var warns []string
		if env("OPENAI_API_KEY") != "" {
			warns = append(warns, "OPENAI_API_KEY is set beside a ChatGPT login ("+p+"): tools and providers that read it bill the API key, not your ChatGPT plan")
		}
		return agentspec.Auth{State: agentspec.AuthSubscription, Source: p}, warns
	}
	return agentspec.Auth{State: agentspec.AuthNone, Source: ""}, nil
}

// codexProviderAuth decides auth for a config.toml whose model_provider is
// not OpenAI: the provider's env_key, or nothing for a keyless one. ok is
// false when the OpenAI login applies.
func codexProviderAuth(env agentspec.Env, cfgDir string) (agentspec.Auth, bool) {
	path := filepath.Join(cfgDir, "config.toml")
	var c struct {
		ModelProvider string `toml:"model_provider"`
		Providers     map[string]struct {
			EnvKey             string `toml:"env_key"`
			RequiresOpenAIAuth bool   `toml:"requires_openai_auth"`
		} `toml:"model_providers"`
	}
	if _, err := toml.DecodeFile(path, &c); err != nil || c.ModelProvider == "" || c.ModelProvider == "openai" {
		return agentspec.Auth{}, false
	}
	src := path + " (model_provider " + c.ModelProvider + ")"
	prov, ok := c.Providers[c.ModelProvider]
	switch {
	case !ok && codexLocalProviders[c.ModelProvider]:
		return agentspec.Auth{State: agentspec.AuthNotRequired, Source: src}, true
	case !ok || prov.RequiresOpenAIAuth:
		return agentspec.Auth{}, false
	case prov.EnvKey == "":
		return agentspec.Auth{State: agentspec.AuthNotRequired, Source: src}, true
	case env(prov.EnvKey) != "":
		return agentspec.Auth{State: agentspec.AuthAPIKey, Source: prov.EnvKey}, true
	}
	return agentspec.Auth{State: agentspec.AuthNone, Source: prov.EnvKey}, true
}
