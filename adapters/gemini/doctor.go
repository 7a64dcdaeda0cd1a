package gemini

import (
	"path/filepath"
	"strings"

	"github.com/hubdev/hub/detect"
)

// Doctor is what `hub doctor` checks for gemini: one tested range for the
// doctor and the warning about records hub does not know.
var Doctor = detect.Spec{
	Name: Name, Bin: "gemini", Package: "@google/gemini-cli", Tested: ">=0.50.0 <1.0.0", Verified: TestedVersions,
	ConfigDir: detect.DirFrom("GEMINI_CLI_HOME", ".gemini"), SkillsDir: detect.Sub("skills"),
	AuthFiles: func(c, _ string) []string {
		return []string{filepath.Join(c, "settings.json"), filepath.Join(c, "oauth_creds.json")}
	},
	Auth:     geminiAuth,
	LoginFix: "run `gemini` and choose \"Login with Google\", or set GEMINI_API_KEY",
	Login:    []string{},
	EnvVars:  []string{"GEMINI_CLI_HOME", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"},
}

func geminiAuth(env detect.Env, cfgDir, _ string) (detect.Auth, []string) {
	settings := filepath.Join(cfgDir, "settings.json")
	selected := ""
	if m := detect.ReadJSON(settings); m != nil {
		if sec, ok := m["security"].(map[string]any); ok {
			if a, ok := sec["auth"].(map[string]any); ok {
				selected, _ = a["selectedType"].(string)
			}
		}
	}
	creds := filepath.Join(cfgDir, "oauth_creds.json")
	oauth := detect.FileExists(creds)
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		if env(k) == "" {
			continue
		}
		if strings.HasPrefix(selected, "oauth") && oauth {
			return detect.Auth{State: detect.AuthSubscription, Source: creds}, []string{k + " is set but settings select Google login (" + settings + "); switching auth type to gemini-api-key would bill the key"}
		}
		var warns []string
		if oauth {
			warns = append(warns, k+" is set beside a Google login ("+creds+"): gemini may bill the API key instead of your Google account")
		}
		return detect.Auth{State: detect.AuthAPIKey, Source: k}, warns
	}
	if env("GOOGLE_GENAI_USE_VERTEXAI") != "" {
		return detect.Auth{State: detect.AuthAPIKey, Source: "GOOGLE_GENAI_USE_VERTEXAI"}, nil
	}
	if oauth {
		return detect.Auth{State: detect.AuthSubscription, Source: creds}, nil
	}
	return detect.Auth{State: detect.AuthNone, Source: ""}, nil
}
