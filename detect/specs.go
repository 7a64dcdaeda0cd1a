package detect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// envFn reads one variable of the probed environment.
type envFn func(string) string

// cliSpec is what hub knows about one agent CLI (from research/clis.md,
// "Detector facts").
type cliSpec struct {
	name, bin, pkg string
	tested         string // default tested range
	configDir      func(env envFn, home string) string
	skillsDir      func(cfgDir, home string) string
	// authFiles are the files whose change invalidates the cache.
	authFiles func(cfgDir, home string) []string
	auth      func(env envFn, cfgDir, home string) (Auth, []string)
	loginFix  string
}

func dirFrom(envVar, def string) func(envFn, string) string {
	return func(env envFn, home string) string {
		if v := env(envVar); v != "" {
			return v
		}
		return filepath.Join(home, def)
	}
}

func sub(name string) func(string, string) string {
	return func(cfgDir, _ string) string { return filepath.Join(cfgDir, name) }
}

var specs = []cliSpec{
	{
		name: "claude", bin: "claude", pkg: "@anthropic-ai/claude-code", tested: ">=2.1.0 <3.0.0",
		configDir: dirFrom("CLAUDE_CONFIG_DIR", ".claude"), skillsDir: sub("skills"),
		authFiles: func(c, h string) []string {
			return []string{filepath.Join(c, ".credentials.json"), filepath.Join(c, "settings.json"), filepath.Join(h, ".claude.json")}
		},
		auth:     claudeAuth,
		loginFix: "run `claude` then /login, or set ANTHROPIC_API_KEY",
	},
	{
		name: "codex", bin: "codex", pkg: "@openai/codex", tested: ">=0.160.0 <1.0.0",
		configDir: dirFrom("CODEX_HOME", ".codex"), skillsDir: sub("skills"),
		authFiles: func(c, _ string) []string {
			return []string{filepath.Join(c, "auth.json"), filepath.Join(c, "config.toml")}
		},
		auth:     codexAuth,
		loginFix: "run `codex login` (or `printenv OPENAI_API_KEY | codex login --with-api-key`)",
	},
	{
		name: "gemini", bin: "gemini", pkg: "@google/gemini-cli", tested: ">=0.50.0 <1.0.0",
		configDir: dirFrom("GEMINI_CLI_HOME", ".gemini"), skillsDir: sub("skills"),
		authFiles: func(c, _ string) []string {
			return []string{filepath.Join(c, "settings.json"), filepath.Join(c, "oauth_creds.json")}
		},
		auth:     geminiAuth,
		loginFix: "run `gemini` and choose \"Login with Google\", or set GEMINI_API_KEY",
	},
	{
		name: "qodercli", bin: "qodercli", pkg: "@qoder-ai/qodercli", tested: ">=1.1.0 <2.0.0",
		configDir: dirFrom("QODER_CONFIG_DIR", ".qoder"), skillsDir: sub("skills"),
		authFiles: func(c, _ string) []string { return []string{filepath.Join(c, ".auth")} },
		auth:      qoderAuth,
		loginFix:  "run `qodercli login`, or set QODER_PERSONAL_ACCESS_TOKEN",
	},
	{
		name: "pi", bin: "pi", pkg: "@mariozechner/pi-coding-agent", tested: ">=0.73.0 <2.0.0",
		configDir: dirFrom("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent")), skillsDir: sub("skills"),
		authFiles: func(c, _ string) []string { return []string{filepath.Join(c, "auth.json")} },
		auth:      piAuth,
		loginFix:  "run `pi` then /login, or set a provider key such as ANTHROPIC_API_KEY",
	},
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func readJSON(p string) map[string]any {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

func claudeAuth(env envFn, cfgDir, home string) (Auth, []string) {
	var sub Auth
	if v := env("CLAUDE_CODE_OAUTH_TOKEN"); v != "" {
		sub = Auth{AuthSubscription, "CLAUDE_CODE_OAUTH_TOKEN"}
	} else if p := filepath.Join(cfgDir, ".credentials.json"); exists(p) {
		sub = Auth{AuthSubscription, p}
	} else if p := filepath.Join(home, ".claude.json"); readJSON(p)["oauthAccount"] != nil {
		sub = Auth{AuthSubscription, p + " (keychain)"}
	}
	billing := func(what string) []string {
		if sub.State == "" {
			return nil
		}
		return []string{what + ": claude bills this key instead of your subscription login (" + sub.Source + "); remove it to use the subscription"}
	}
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"} {
		if env(k) != "" {
			return Auth{AuthAPIKey, k}, billing(k + " is set")
		}
	}
	settings := filepath.Join(cfgDir, "settings.json")
	if h, _ := readJSON(settings)["apiKeyHelper"].(string); strings.TrimSpace(h) != "" {
		return Auth{AuthAPIKey, settings + " (apiKeyHelper)"}, billing("apiKeyHelper is set in " + settings)
	}
	for _, k := range []string{"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"} {
		if env(k) != "" && env(k) != "0" {
			return Auth{AuthAPIKey, k}, billing(k + " is set")
		}
	}
	if sub.State != "" {
		return sub, nil
	}
	return Auth{AuthNone, ""}, nil
}

func codexAuth(env envFn, cfgDir, _ string) (Auth, []string) {
	if a, ok := codexProviderAuth(env, cfgDir); ok {
		return a, nil
	}
	p := filepath.Join(cfgDir, "auth.json")
	m := readJSON(p)
	chatgpt := m["tokens"] != nil
	if env("CODEX_API_KEY") != "" {
		var warns []string
		if chatgpt {
			warns = append(warns, "CODEX_API_KEY is set beside a ChatGPT login ("+p+"): codex bills the key instead of your ChatGPT plan; unset it to use the plan")
		}
		return Auth{AuthAPIKey, "CODEX_API_KEY"}, warns
	}
	if m == nil {
		return Auth{AuthNone, ""}, nil
	}
	if key, _ := m["OPENAI_API_KEY"].(string); key != "" || m["auth_mode"] == "apikey" {
		return Auth{AuthAPIKey, p}, nil
	}
	if chatgpt {
		var warns []string
		if env("OPENAI_API_KEY") != "" {
			warns = append(warns, "OPENAI_API_KEY is set beside a ChatGPT login ("+p+"): tools and providers that read it bill the API key, not your ChatGPT plan")
		}
		return Auth{AuthSubscription, p}, warns
	}
	return Auth{AuthNone, ""}, nil
}

// codexLocalProviders are codex's built-in providers that need no login.
var codexLocalProviders = map[string]bool{"oss": true, "ollama": true, "lmstudio": true}

// codexProviderAuth decides auth for a config.toml whose model_provider is
// not OpenAI: the provider's env_key, or nothing for a keyless one. ok is
// false when the OpenAI login applies.
func codexProviderAuth(env envFn, cfgDir string) (Auth, bool) {
	path := filepath.Join(cfgDir, "config.toml")
	var c struct {
		ModelProvider string `toml:"model_provider"`
		Providers     map[string]struct {
			EnvKey             string `toml:"env_key"`
			RequiresOpenAIAuth bool   `toml:"requires_openai_auth"`
		} `toml:"model_providers"`
	}
	if _, err := toml.DecodeFile(path, &c); err != nil || c.ModelProvider == "" || c.ModelProvider == "openai" {
		return Auth{}, false
	}
	src := path + " (model_provider " + c.ModelProvider + ")"
	prov, ok := c.Providers[c.ModelProvider]
	switch {
	case !ok && codexLocalProviders[c.ModelProvider]:
		return Auth{AuthNotRequired, src}, true
	case !ok || prov.RequiresOpenAIAuth:
		return Auth{}, false
	case prov.EnvKey == "":
		return Auth{AuthNotRequired, src}, true
	case env(prov.EnvKey) != "":
		return Auth{AuthAPIKey, prov.EnvKey}, true
	}
	return Auth{AuthNone, prov.EnvKey}, true
}

func geminiAuth(env envFn, cfgDir, _ string) (Auth, []string) {
	settings := filepath.Join(cfgDir, "settings.json")
	selected := ""
	if m := readJSON(settings); m != nil {
		if sec, ok := m["security"].(map[string]any); ok {
			if a, ok := sec["auth"].(map[string]any); ok {
				selected, _ = a["selectedType"].(string)
			}
		}
	}
	creds := filepath.Join(cfgDir, "oauth_creds.json")
	oauth := exists(creds)
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		if env(k) == "" {
			continue
		}
		if strings.HasPrefix(selected, "oauth") && oauth {
			return Auth{AuthSubscription, creds}, []string{k + " is set but settings select Google login (" + settings + "); switching auth type to gemini-api-key would bill the key"}
		}
		var warns []string
		if oauth {
			warns = append(warns, k+" is set beside a Google login ("+creds+"): gemini may bill the API key instead of your Google account")
		}
		return Auth{AuthAPIKey, k}, warns
	}
	if env("GOOGLE_GENAI_USE_VERTEXAI") != "" {
		return Auth{AuthAPIKey, "GOOGLE_GENAI_USE_VERTEXAI"}, nil
	}
	if oauth {
		return Auth{AuthSubscription, creds}, nil
	}
	return Auth{AuthNone, ""}, nil
}

func qoderAuth(env envFn, cfgDir, _ string) (Auth, []string) {
	if env("QODER_PERSONAL_ACCESS_TOKEN") != "" {
		return Auth{AuthAPIKey, "QODER_PERSONAL_ACCESS_TOKEN"}, nil
	}
	dir := filepath.Join(cfgDir, ".auth")
	if hasQoderCredential(dir) {
		return Auth{AuthLoggedIn, dir}, nil
	}
	return Auth{AuthNone, ""}, nil
}

// hasQoderCredential reports a non-empty credential file in dir. Any
// qodercli run (even --version) leaves machine_id and an empty
// .credential-transaction there, so neither counts as a login.
func hasQoderCredential(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || name == "machine_id" || strings.HasPrefix(name, ".") {
			continue
		}
		if info, err := e.Info(); err == nil && info.Size() > 0 {
			return true
		}
	}
	return false
}

var piKeyEnv = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "XAI_API_KEY", "MISTRAL_API_KEY", "CEREBRAS_API_KEY"}

func piAuth(env envFn, cfgDir, _ string) (Auth, []string) {
	p := filepath.Join(cfgDir, "auth.json")
	if m := readJSON(p); len(m) > 0 {
		// Entries are {"type":"oauth"} (a subscription login such as
		// Claude Pro or ChatGPT) or {"type":"api_key"}; pi prefers them
		// over env vars.
		kinds := map[string]bool{}
		for _, v := range m {
			e, _ := v.(map[string]any)
			t, _ := e["type"].(string)
			kinds[t] = true
		}
		switch {
		case len(kinds) == 1 && kinds["oauth"]:
			return Auth{AuthSubscription, p}, nil
		case len(kinds) == 1 && kinds["api_key"]:
			return Auth{AuthAPIKey, p}, nil
		}
		return Auth{AuthLoggedIn, p}, nil
	}
	for _, k := range piKeyEnv {
		if env(k) != "" {
			return Auth{AuthAPIKey, k}, nil
		}
	}
	if m := readJSON(filepath.Join(cfgDir, "models.json")); len(m) > 0 {
		return Auth{AuthAPIKey, filepath.Join(cfgDir, "models.json")}, nil
	}
	return Auth{AuthNone, ""}, nil
}

// relevantEnv lists variables whose value changes a report.
var relevantEnv = []string{
	"PATH", "SHELL", "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "QODER_CONFIG_DIR", "PI_CODING_AGENT_DIR",
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX",
	"CLAUDE_CODE_USE_FOUNDRY", "CODEX_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY",
	"GOOGLE_GENAI_USE_VERTEXAI", "QODER_PERSONAL_ACCESS_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "OPENROUTER_API_KEY", "GROQ_API_KEY",
	"XAI_API_KEY", "MISTRAL_API_KEY", "CEREBRAS_API_KEY",
}
