package gemini

import (
	"path/filepath"
	"strings"

	"github.com/hubdev/hub/adapters/agentspec"
)

// Doctor is what `hub doctor` checks for gemini.
var Doctor = agentspec.Spec{
	Name: Name, Bin: "gemini", Package: "@google/gemini-cli", Tested: ">=0.50.0 <1.0.0", Verified: TestedVersions,
	ConfigDir: agentspec.DirFrom("GEMINI_CLI_HOME", ".gemini"), SkillsDir: agentspec.Sub("skills"),
	AuthFiles: func(c, _ string) []string {
		return []string{filepath.Join(c, "settings.json"), filepath.Join(c, "oauth_creds.json")}
	},
	Auth:     geminiAuth,
	LoginFix: "run `gemini` and choose \"Login with Google\", or set GEMINI_API_KEY",
	Login:    []string{},
	EnvVars:  []string{"GEMINI_CLI_HOME", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"},
}

func geminiAuth(env agentspec.Env, cfgDir, _ string) (agentspec.Auth, []string) {
	settings := filepath.Join(cfgDir, "settings.json")
	security, _ := agentspec.ReadJSON(settings)["security"].(map[string]any) // a missing level reads as a nil map
	auth, _ := security["auth"].(map[string]any)
	selected, _ := auth["selectedType"].(string)
	creds := filepath.Join(cfgDir, "oauth_creds.json")
	oauth := agentspec.FileExists(creds)
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		if env(k) == "" {
			continue
		}
		if strings.HasPrefix(selected, "oauth") && oauth {
			return agentspec.Auth{State: agentspec.AuthSubscription, Source: creds}, []string{k + " is set but settings select Google login (" + settings + "); switching auth type to gemini-api-key would bill the key"}
		}
		var warns []string
		if oauth {
			warns = append(warns, k+" is set beside a Google login ("+creds+"): gemini may bill the API key instead of your Google account")
		}
		return agentspec.Auth{State: agentspec.AuthAPIKey, Source: k}, warns
	}
	if env("GOOGLE_GENAI_USE_VERTEXAI") != "" {
		return agentspec.Auth{State: agentspec.AuthAPIKey, Source: "GOOGLE_GENAI_USE_VERTEXAI"}, nil
	}
	if oauth {
		return agentspec.Auth{State: agentspec.AuthSubscription, Source: creds}, nil
	}
	return agentspec.Auth{State: agentspec.AuthNone, Source: ""}, nil
}
