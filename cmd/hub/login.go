package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/detect"
)

const loginHelp = `Usage: hub login AGENT
       hub logout AGENT

Runs the agent's own login (or logout) in this terminal: claude auth login,
codex login, qodercli login, or gemini, which asks how to sign in when it
starts. Editors offer the same login through ACP terminal auth, which runs
'hub acp ... login AGENT'. Exit code: the agent's.
`

func init() {
	commands["login"] = command{run: func(ctx context.Context, e *env, args []string) int { return runLogin(ctx, e, args, false) }, help: loginHelp}
	commands["logout"] = command{run: func(ctx context.Context, e *env, args []string) int { return runLogin(ctx, e, args, true) }, help: loginHelp}
}

var errNoLogin = errors.New("has no login of its own")

func runLogin(ctx context.Context, e *env, args []string, logout bool) int {
	fs := newFlagSet("login", loginHelp, e.stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprint(e.stderr, loginHelp)
		return exitUsage
	}
	argv, err := loginArgv(e, fs.Arg(0), logout)
	if err != nil {
		fmt.Fprintf(e.stderr, "hub: %v\n", err)
		return exitUsage
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stderr, e.stderr
	if f, ok := e.stdout.(*os.File); ok { // a terminal, not the protocol
		cmd.Stdout = f
	}
	cmd.Env = adapters.Environ(os.Environ(), e.cfg.Agents[fs.Arg(0)].Env)
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintf(e.stderr, "hub: %s: %v\n", strings.Join(argv, " "), err)
		return exitError
	}
	return exitOK
}

// loginArgv is the agent's command (its configured one, else its program)
// with its login or logout arguments.
func loginArgv(e *env, name string, logout bool) ([]string, error) {
	spec, ok := loginSpec(name)
	what := spec.Login
	if logout {
		what = spec.Logout
	}
	if !ok || what == nil {
		verb := "login"
		if logout {
			verb = "logout"
		}
		return nil, fmt.Errorf("%s %s %w (%s)", name, verb, errNoLogin, cmp.Or(spec.LoginFix, "see 'hub doctor'"))
	}
	argv := []string{spec.Bin}
	if ac, ok := e.cfg.Agents[name]; ok && len(ac.Command) > 0 {
		argv = ac.Argv()
		if spec.Catalog { // its args make it speak ACP, not log in
			argv = ac.Command
		}
	}
	return append(argv, what...), nil
}

func loginSpec(name string) (detect.Spec, bool) {
	specs := all.DoctorSpecs()
	i := slices.IndexFunc(specs, func(s detect.Spec) bool { return s.Name == name })
	if i < 0 {
		return detect.Spec{}, false
	}
	return specs[i], true
}

// authMethods are the terminal logins hub offers an editor: one per agent
// that can run here, has a login, and is not logged in by doctor's
// account (its config files and env).
func authMethods(e *env) []schema.AuthMethod {
	home, _ := os.UserHomeDir()
	var out []schema.AuthMethod
	for _, spec := range all.DoctorSpecs() {
		a, err := e.registry.Get(spec.Name)
		if spec.Login == nil || spec.Auth == nil || err != nil || adapters.Ready(a) != nil {
			continue
		}
		cfgDir := ""
		if spec.ConfigDir != nil {
			cfgDir = spec.ConfigDir(os.Getenv, home)
		}
		if auth, _ := spec.Auth(os.Getenv, cfgDir, home); auth.State != detect.AuthNone {
			continue
		}
		out = append(out, schema.AuthMethod{ID: "login-" + spec.Name, Name: "Log in to " + spec.Name,
			Description: spec.LoginFix, Type: "terminal", Args: []string{"login", spec.Name}})
	}
	return out
}
