package claude

import "github.com/hubdev/hub/internal/config"

// ProjectSettings are the claude settings files of the project in cwd
// (config.SettingSources), for 'hub trust' to record.
func ProjectSettings(cwd string) []string { return config.SettingsFiles(cwd, ".claude") }
