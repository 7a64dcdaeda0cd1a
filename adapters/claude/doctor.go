package claude

import (
	"cmp"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hubdev/hub/adapters/agentspec"
)

// Doctor is what `hub doctor` checks for claude.
var Doctor = agentspec.Spec{
	Name: "claude", Bin: "claude", Package: "@anthropic-ai/claude-code", Tested: ">=2.1.0 <3.0.0", Verified: TestedVersions,
	ConfigDir: agentspec.DirFrom("CLAUDE_CONFIG_DIR", ".claude"), SkillsDir: agentspec.Sub("skills"),
	AuthFiles: func(c, h string) []string {
		return []string{filepath.Join(c, ".credentials.json"), filepath.Join(c, "settings.json"), filepath.Join(h, ".claude.json")}
	},
	Auth:     claudeAuthOn(runtime.GOOS),
	LoginFix: "run `claude` then /login, or set ANTHROPIC_API_KEY",
	Login:    []string{"auth", "login"},
	Logout:   []string{"auth", "logout"},
	EnvVars:  []string{"CLAUDE_CONFIG_DIR", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"},
}

const keychainReason = "on macOS claude keeps its login in the Keychain, which hub does not read; run `claude` to check"

// claudeAuthOn decides claude's login state by goos's rules: on macOS a subscription
// login lives in the Keychain, so finding no file there means "unknown".
func claudeAuthOn(goos string) func(agentspec.Env, string, string) (agentspec.Auth, []string) {
	return func(env agentspec.Env, cfgDir, home string) (agentspec.Auth, []string) {
		a, warns := claudeAuth(env, cfgDir, home)
		if a.State == agentspec.AuthNone && goos == "darwin" {
			a = agentspec.Auth{State: agentspec.AuthUnknown, Reason: keychainReason}
		}
		return a, warns
	}
}

func claudeAuth(env agentspec.Env, cfgDir, home string) (agentspec.Auth, []string) {
	var sub agentspec.Auth
	if v := env("CLAUDE_CODE_OAUTH_TOKEN"); v != "" {
		sub = agentspec.Auth{State: agentspec.AuthSubscription, Source: "CLAUDE_CODE_OAUTH_TOKEN"}
	} else if p := filepath.Join(cfgDir, ".credentials.json"); agentspec.FileExists(p) {
		sub = agentspec.Auth{State: agentspec.AuthSubscription, Source: p}
	} else if p := filepath.Join(home, ".claude.json"); agentspec.ReadJSON(p)["oauthAccount"] != nil {
		sub = agentspec.Auth{State: agentspec.AuthSubscription, Source: p + " (keychain)"}
	}
	billing := func(what string) []string {
		if sub.State == "" {
			return nil
		}
		return []string{what + ": claude bills this key instead of your subscription login (" + sub.Source + "); remove it to use the subscription"}
	}
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"} {
		if env(k) != "" {
			return agentspec.Auth{State: agentspec.AuthAPIKey, Source: k}, billing(k + " is set")
		}
	}
	settings := filepath.Join(cfgDir, "settings.json")
	if h, _ := agentspec.ReadJSON(settings)["apiKeyHelper"].(string); strings.TrimSpace(h) != "" {
		return agentspec.Auth{State: agentspec.AuthAPIKey, Source: settings + " (apiKeyHelper)"}, billing("apiKeyHelper is set in " + settings)
	}
	for _, k := range []string{"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"} {
		if env(k) != "" && env(k) != "0" {
			return agentspec.Auth{State: agentspec.AuthAPIKey, Source: k}, billing(k + " is set")
		}
	}
	return cmp.Or(sub, agentspec.Auth{State: agentspec.AuthNone}), nil
}
