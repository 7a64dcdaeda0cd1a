package pi

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// pi reads from its session directory (not its parents) files that run
// code at start: .pi/settings.json, whose packages it installs with the
// file's own npmCommand and whose shellPath and shellCommandPrefix run
// with every bash call, and the extensions under .pi/extensions, which it
// loads. hub starts pi without the extensions it has not trusted; pi has
// no switch to leave out only the project's settings, so an untrusted
// .pi/settings.json keeps pi from starting.
var (
	settingsFile  = filepath.Join(".pi", "settings.json")
	extensionsDir = filepath.Join(".pi", "extensions")
)

// ProjectSettings are the files pi runs from the project in cwd, for
// 'hub trust' to record.
func ProjectSettings(cwd string) []string {
	return config.Trustable(append(config.FilesUnder(filepath.Join(cwd, extensionsDir), ""), filepath.Join(cwd, settingsFile)))
}

// SetTrustProject lets pi run the project's files hub has not trusted
// (--trust-project).
func (a *Adapter) SetTrustProject(trust bool) { a.opts.TrustProject = trust }

// trustArgs are pi's flags that leave out the project's untrusted
// extensions (--no-extensions, then the user's own again with -e), and
// the notice of what was left out; an untrusted settings file is an error.
func (a *Adapter) trustArgs(so adapters.SessionOptions) (args []string, notice string, err error) {
	if a.opts.TrustProject {
		return nil, "", nil
	}
	if f := filepath.Join(so.Cwd, settingsFile); config.UntrustedFile(f) {
		return nil, "", fmt.Errorf("pi would run %s, which hub has not trusted: its packages and shell settings run commands (run 'hub trust' in %s, or pass --trust-project)", f, so.Cwd)
	}
	untrusted := slices.DeleteFunc(config.FilesUnder(filepath.Join(so.Cwd, extensionsDir), ""), func(f string) bool { return !config.UntrustedFile(f) })
	if len(untrusted) == 0 {
		return nil, "", nil
	}
	args = []string{"--no-extensions"}
	home, _ := os.UserHomeDir()
	own := filepath.Join(cmp.Or(so.Env[agentDirEnv], a.opts.Env[agentDirEnv], os.Getenv(agentDirEnv), filepath.Join(home, ".pi", "agent")), "extensions")
	entries, _ := os.ReadDir(own)
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); e.IsDir() || e.Type()&os.ModeSymlink != 0 || ext == ".ts" || ext == ".js" {
			args = append(args, "-e", filepath.Join(own, e.Name()))
		}
	}
	return args, config.LeftOut("pi", untrusted, " (and so without the extensions your settings and packages name)", "run code as pi starts", so.Cwd), nil
}

// agentDirEnv is pi's own folder (settings, extensions), ~/.pi/agent unset.
const agentDirEnv = "PI_CODING_AGENT_DIR"
