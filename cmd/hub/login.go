package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/agentspec"
	"github.com/hubdev/hub/adapters/all"
)

func init() {
	commands["login"] = described("login", func(ctx context.Context, e *env, args []string) int { return runLogin(ctx, e, args, false) })
	commands["logout"] = described("login", func(ctx context.Context, e *env, args []string) int { return runLogin(ctx, e, args, true) })
}

func runLogin(ctx context.Context, e *env, args []string, logout bool) int {
	fs := e.flagSet("login")
	if code, ok := e.parseFlags(fs, args); !ok {
		return code
	}
	name := fs.Arg(0)
	switch {
	case fs.NArg() == 0 && !logout:
		var code int
		if name, code = chooseLogin(e); name == "" {
			return code
		}
	case fs.NArg() != 1:
		verb := map[bool]string{false: "login", true: "logout"}[logout]
		return e.fail(exitUsage, "hub %s: takes one agent name (see 'hub %s --help')\n", verb, verb)
	}
	argv, err := loginArgv(e, name, logout)
	if err != nil {
		return e.fail(exitUsage, "hub: %v\n", err)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stderr, e.stderr
	if f, ok := e.stdout.(*os.File); ok { // a terminal, not the protocol
		cmd.Stdout = f
	}
	cmd.Env = adapters.Environ(os.Environ(), e.cfg.Agents[name].Env)
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		return e.fail(exitError, "hub: %s: %v\n", strings.Join(argv, " "), err)
	}
	return exitOK
}

// loginArgv is the agent's command (its configured one, else its program)
// with its login or logout arguments.
func loginArgv(e *env, name string, logout bool) ([]string, error) {
	specs := all.DoctorSpecs()
	var spec agentspec.Spec // an agent doctor does not know has no login
	if i := slices.IndexFunc(specs, func(s agentspec.Spec) bool { return s.Name == name }); i >= 0 {
		spec = specs[i]
	}
	what, verb := spec.Login, "login"
	if logout {
		what, verb = spec.Logout, "logout"
	}
	if what == nil {
		return nil, fmt.Errorf("%s %s has no login of its own (%s)", name, verb, cmp.Or(spec.LoginFix, "see 'hub doctor'"))
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

// stdinIsTerminal tells whether hub login can ask which agent.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// loginAgents are the agents with a login of their own, in doctor's order.
func loginAgents() []agentspec.Spec {
	return slices.DeleteFunc(all.DoctorSpecs(), func(s agentspec.Spec) bool { return s.Login == nil })
}

// chooseLogin lists the agents that have a login and reads the user's
// choice by number; "" and an exit code when there is none.
func chooseLogin(e *env) (string, int) {
	specs := loginAgents()
	for i, spec := range specs {
		note := ""
		if a, err := e.registry.Get(spec.Name); err != nil || adapters.Ready(a) != nil {
			note = " (not installed here)"
		}
		fmt.Fprintf(e.stderr, "  %d) %s%s\n", i+1, spec.Name, note)
	}
	if !stdinIsTerminal(e.stdin) {
		return "", e.fail(exitUsage, "hub login: name the agent: hub login AGENT\n")
	}
	fmt.Fprintf(e.stderr, "Log in to which agent? [1-%d] ", len(specs))
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	line = strings.TrimSpace(line)
	for i, spec := range specs {
		if line == fmt.Sprint(i+1) || line == spec.Name {
			return spec.Name, exitOK
		}
	}
	if line == "" && err != nil {
		return "", e.fail(exitUsage, "\nhub login: no agent chosen\n")
	}
	return "", e.fail(exitUsage, "hub login: %q is not one of 1-%d\n", line, len(specs))
}

// authMethods are the terminal logins hub offers an editor: "hub login",
// which asks for the agent (so there is one even with no agent installed),
// then one per agent that can run here, has a login, and doctor finds
// logged out.
// Args follow 'hub acp ...'; the terminal-auth meta is a whole command.
func authMethods(e *env) []schema.AuthMethod {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	method := func(id, name, desc string, args ...string) schema.AuthMethod {
		return schema.AuthMethod{ID: id, Name: name, Description: desc, Type: "terminal", Args: args,
			Meta: schema.Meta{schema.TerminalAuthMeta: schema.TerminalAuth{Label: name, Command: self, Args: args}}}
	}
	out := []schema.AuthMethod{method("login", "Log in to an agent", "choose an agent and run its own login in a terminal", "login")}
	home, _ := os.UserHomeDir()
	for _, spec := range all.DoctorSpecs() {
		a, err := e.registry.Get(spec.Name)
		if spec.Login == nil || spec.Auth == nil || err != nil || adapters.Ready(a) != nil {
			continue
		}
		// Every spec has a ConfigDir (hub doctor asks each one's).
		if auth, _ := spec.Auth(os.Getenv, spec.ConfigDir(os.Getenv, home), home); auth.State != agentspec.AuthNone {
			continue
		}
		out = append(out, method("login-"+spec.Name, "Log in to "+spec.Name, spec.LoginFix, "login", spec.Name))
	}
	return out
}
