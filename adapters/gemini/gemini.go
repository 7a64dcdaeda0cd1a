// Package gemini drives Google's Gemini CLI through its native ACP mode (`gemini --acp`),
// falling back to `gemini -p ... -o stream-json` when the ACP handshake fails.
package gemini

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

const Name = "gemini"

// TestedVersions is the gemini-cli release the adapter was tested with.
const TestedVersions = "0.61.0"

// versionTimeout bounds `gemini --version`, run only once a stream-json record hub does
// not know shows up (the ACP channel reports the version in initialize).
const versionTimeout = 10 * time.Second

// invalidSource is the decoder's source for a stdout line that is not JSON (banners),
// no record type to warn about.
const invalidSource = "gemini:invalid"

// DefaultArgv starts gemini as an ACP agent. Without --skip-trust: in a folder the user
// has not trusted, gemini keeps the repository's .gemini/settings.json (MCP servers,
// hooks) from loading; hub trusts a folder only under --trust-project (Trusting).
var DefaultArgv = []string{"gemini", "--acp"}

// DefaultEnv keeps gemini in one process (its relauncher parent ignores SIGINT/SIGTERM).
var DefaultEnv = map[string]string{"GEMINI_CLI_NO_RELAUNCH": "true"}

const trustEnv = "GEMINI_CLI_TRUST_WORKSPACE" // trusts the workspace for one run

// Trusting is ac trusting the workspace for gemini's folder trust when the user trusted
// the project for this run (--trust-project), unless ac says otherwise.
func Trusting(ac config.AgentConfig, trustProject bool) config.AgentConfig {
	if _, set := ac.Env[trustEnv]; trustProject && !set {
		ac.Env = merge(ac.Env, map[string]string{trustEnv: "true"})
	}
	return ac
}

func Capabilities() adapters.Capabilities {
	return adapters.Capabilities{
		Images: true, Audio: true, EmbeddedContext: true, Resume: true, Permissions: true,
		MCP: true, MCPHTTP: true, UsesEditorFS: true, Skills: "prompt", TestedVersions: TestedVersions,
		Modes: []adapters.Option{
			{ID: "default", Name: "Default", Description: "Prompts for approval"},
			{ID: "autoEdit", Name: "Auto Edit", Description: "Auto-approves edit tools"},
			{ID: "yolo", Name: "YOLO", Description: "Auto-approves all tools"},
			{ID: "plan", Name: "Plan", Description: "Read-only mode"},
		},
		DefaultMode: "default",
		Notes: "native ACP (gemini --acp); models and modes come from gemini's session; " +
			"shell commands run without a pty so their output reaches the editor (options.plain_shell = false keeps gemini's pty); " +
			"the stream-json fallback has no permission prompts and no thoughts; " +
			"skills arrive in the prompt: gemini 0.61 loads skills natively only from its bundle, installed extensions, " +
			"~/.gemini/skills, ~/.agents/skills and the workspace's .gemini/skills and .agents/skills, with no flag, setting " +
			"or ACP field for another dir, and moving its home (GEMINI_CLI_HOME) would also move its auth, settings and chats",
	}
}

// New builds the adapter from the [agents.gemini] config entry (zero value for defaults).
func New(ac config.AgentConfig, version string, log zerolog.Logger) *acpclient.Adapter {
	argv := ac.ArgvOr(DefaultArgv...)
	env := merge(DefaultEnv, ac.Env)
	plainShell := ac.Options[OptionPlainShell] != false // only false keeps the pty
	return acpclient.New(acpclient.Config{
		Name: Name, Quirks: Quirks, Argv: argv, Env: env, Model: ac.Model, Mode: ac.Mode, Caps: Capabilities(),
		ClientVersion: version, Logger: log, BeforeLoad: beforeLoad(log, time.Now),
		WrapStart: wrapStart(env, plainShell, log),
		Fallback: acpclient.StreamJSON{Name: Name, Env: env, Logger: log,
			Argv:           func(p, id string, o adapters.SessionOptions) []string { return FallbackArgv(argv, p, id, o) },
			NewDecoder:     func() adapters.LineDecoder { return NewGeminiDecoder() },
			TestedVersions: TestedVersions, Version: adapters.CLIVersion(plainArgv(argv), env, versionTimeout),
			Quiet: func(source string) bool { return source == invalidSource },
		}.Fallback(),
	})
}

// wrapStart starts gemini with the plain shell unless told otherwise, ends the tool calls
// the client rejected, and passes its retries on (see retryLog).
func wrapStart(env map[string]string, plainShell bool, log zerolog.Logger) func(context.Context, adapters.SessionOptions, acpclient.StartFunc) (adapters.Session, error) {
	return func(ctx context.Context, opts adapters.SessionOptions, start acpclient.StartFunc) (adapters.Session, error) {
		if plainShell {
			var kept string
			opts.Env, kept = plainShellEnv(opts.Env, adapters.Environ(nil, env, opts.Env), opts.Cwd)
			if kept != "" {
				log.Debug().Str("agent", Name).Msgf("keeping gemini's shell as configured: %s", kept)
			}
		}
		var rl *retryLog
		rl, opts.Env = newRetryLog(adapters.Environ(nil, env, opts.Env), opts.Env)
		r := &rejecter{}
		opts.Permission = r.permission(opts.Permission)
		s, err := start(ctx, opts)
		if err != nil {
			rl.remove()
			return nil, err
		}
		return r.wrap(s, rl), nil
	}
}

// beforeLoad moves the session's chat file out of session/load's way (MoveAsideChat).
func beforeLoad(log zerolog.Logger, now func() time.Time) func(string, []string) error {
	return func(id string, env []string) error {
		moved, err := MoveAsideChat(stateHome(env), id, now())
		if moved != "" {
			log.Debug().Str("agent", Name).Str("path", moved).Msg("moved the chat file of a session created this minute")
		}
		return err
	}
}

// FallbackArgv is the stream-json command line for one prompt.
func FallbackArgv(argv []string, prompt, resumeID string, o adapters.SessionOptions) []string {
	out := adapters.AppendFlags(append(plainArgv(argv), "-o", "stream-json"),
		"-m", o.Model, "--approval-mode", approvalMode(o.Mode), "--resume", resumeID)
	return append(out, "-p", adapters.PromptArg(prompt))
}

// plainArgv is argv without the ACP flags the other modes do not take.
func plainArgv(argv []string) []string {
	return acpclient.WithoutFlags(argv, "--acp", "--experimental-acp")
}

func approvalMode(mode string) string {
	return cmp.Or(map[string]string{"autoEdit": "auto_edit"}[mode], mode)
}

func merge(base, over map[string]string) map[string]string {
	out := map[string]string{}
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}
