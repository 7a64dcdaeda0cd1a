package qoder

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hubdev/hub/adapters/agentspec"
)

// Doctor is what `hub doctor` checks for qodercli.
var Doctor = agentspec.Spec{
	Name: Name, Bin: "qodercli", Package: "@qoder-ai/qodercli", Tested: ">=1.1.0 <2.0.0", Verified: TestedVersions,
	ConfigDir: agentspec.DirFrom("QODER_CONFIG_DIR", ".qoder"), SkillsDir: agentspec.Sub("skills"),
	AuthFiles: func(c, _ string) []string { return []string{filepath.Join(c, ".auth")} },
	Auth:      qoderAuth,
	LoginFix:  "run `qodercli login`, or set QODER_PERSONAL_ACCESS_TOKEN",
	Login:     []string{"login"},
	EnvVars:   []string{"QODER_CONFIG_DIR", "QODER_PERSONAL_ACCESS_TOKEN"},
}

func qoderAuth(env agentspec.Env, cfgDir, _ string) (agentspec.Auth, []string) {
	if env("QODER_PERSONAL_ACCESS_TOKEN") != "" {
		return agentspec.Auth{State: agentspec.AuthAPIKey, Source: "QODER_PERSONAL_ACCESS_TOKEN"}, nil
	}
	dir := filepath.Join(cfgDir, ".auth")
	if hasQoderCredential(dir) {
		return agentspec.Auth{State: agentspec.AuthLoggedIn, Source: dir}, nil
	}
	return agentspec.Auth{State: agentspec.AuthNone, Source: ""}, nil
}

// hasQoderCredential reports a non-empty credential file in dir. Any qodercli run (even
// --version) leaves machine_id and an empty .credential-transaction there.
func hasQoderCredential(dir string) bool {
	entries, _ := os.ReadDir(dir) // none when dir cannot be read
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
