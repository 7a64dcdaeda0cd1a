// Package qoder drives Qoder CLI through its hidden ACP mode (`qodercli --acp`), falling
// back to `qodercli -p ... --output-format stream-json` when the handshake fails.
package qoder

import (
	"cmp"
	"context"
	"maps"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/internal/config"
)

const Name = "qodercli"

// TestedVersions is the qodercli release the adapter was tested with.
const TestedVersions = "1.1.52"

// DefaultArgv starts qodercli as an ACP agent (the flag is hidden in --help).
var DefaultArgv = []string{"qodercli", "--acp"}

// stopGrace: qodercli does not exit on stdin EOF and flushes slowly.
const stopGrace = 2 * time.Second

func Capabilities() adapters.Capabilities {
	return adapters.Capabilities{
		Images: true, EmbeddedContext: true, Resume: true, Permissions: true, MCP: true,
		UsesEditorFS: true, Skills: "prompt", TestedVersions: TestedVersions,
		Modes: []adapters.Option{
			{ID: "default", Name: "Default"}, {ID: "acceptEdits", Name: "Accept Edits"},
			{ID: "auto", Name: "Auto"}, {ID: "dontAsk", Name: "Don't Ask"}, {ID: "yolo", Name: "Bypass Permissions"},
		},
		DefaultMode: "default",
		Notes:       "needs a Qoder login (qodercli login or QODER_PERSONAL_ACCESS_TOKEN); cannot use a custom endpoint",
	}
}

// New builds the adapter from the [agents.qodercli] config entry; trustProject lets
// qodercli read the project's settings files although hub has not trusted them.
func New(ac config.AgentConfig, version string, trustProject bool, log zerolog.Logger) *acpclient.Adapter {
	argv := ac.ArgvOr(DefaultArgv...)
	return acpclient.New(acpclient.Config{
		Name: Name, Quirks: Quirks, Argv: argv, Env: ac.Env, Model: ac.Model, Mode: ac.Mode, Caps: Capabilities(),
		StopGrace: stopGrace, ClientVersion: version, Logger: log, WrapStart: withoutPTYTools,
		SessionArgv: func(o adapters.SessionOptions) ([]string, string) { return SessionArgv(argv, o.Cwd, trustProject) },
		Fallback: acpclient.StreamJSON{Name: Name, Env: ac.Env, Logger: log, Grace: 10 * time.Second,
			Argv: func(p, id string, o adapters.SessionOptions) []string {
				argv, _ := SessionArgv(argv, o.Cwd, trustProject)
				return FallbackArgv(argv, p, id, o)
			},
			NewDecoder:     func() adapters.LineDecoder { return NewQoderDecoder() },
			TestedVersions: TestedVersions, Version: adapters.CLIVersion(plainArgv(argv), ac.Env, 10*time.Second),
		}.Fallback(),
	})
}

// noPTY turns off qodercli's PTY tools, whatever the user's or the
// session's environment says: Bash with pty opens a shell that BashInput
// then types into, and hub cannot tell where the shell is or what was
// typed before, so it would judge each line in the wrong place.
const noPTY = "QODER_ENABLE_BASH_PTY_TOOLS"

func withoutPTYTools(ctx context.Context, opts adapters.SessionOptions, start acpclient.StartFunc) (adapters.Session, error) {
	env := map[string]string{}
	maps.Copy(env, opts.Env)
	env[noPTY] = "0"
	opts.Env = env
	return start(ctx, opts)
}

// SessionArgv is argv for a session in cwd, and the notice of what it leaves out:
// qodercli reads the project's .qoder settings, skills, commands, agents and .mcp.json
// without asking when its input is not a terminal, so it runs without those hub has not
// trusted.
func SessionArgv(argv []string, cwd string, trustProject bool) ([]string, string) {
	args, untrusted, noProject := config.SettingSources(argv[1:], cwd, ".qoder", trustProject)
	if len(untrusted) == 0 {
		return argv, ""
	}
	memory := map[bool]string{true: " (and so without the project's memory files)"}[noProject]
	return append([]string{argv[0]}, args...), config.LeftOut(Name, untrusted, memory, "allow tools, run hooks and start MCP servers", cwd)
}

// ProjectSettings are qodercli's settings files of the project in cwd, for 'hub trust'.
func ProjectSettings(cwd string) []string { return config.SettingsFiles(cwd, ".qoder") }

func plainArgv(argv []string) []string { return acpclient.WithoutFlags(argv, "--acp") }

// FallbackArgv is the stream-json command line for one prompt.
func FallbackArgv(argv []string, prompt, resumeID string, o adapters.SessionOptions) []string {
	out := adapters.AppendFlags(append(plainArgv(argv), "--output-format", "stream-json", "--include-partial-messages"),
		"-w", o.Cwd, "-m", o.Model, "--permission-mode", permissionMode(o.Mode), "--resume", resumeID)
	return append(out, "-p", adapters.PromptArg(prompt))
}

func permissionMode(mode string) string {
	return cmp.Or(map[string]string{"acceptEdits": "accept_edits", "dontAsk": "dont_ask", "yolo": "bypass_permissions"}[mode], mode)
}
