// Command hub lets any editor (over ACP) or CI job drive any coding agent.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/logging"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/trace"
)

// Exit codes shared by every subcommand; `hub run` documents more.
const exitOK, exitError, exitUsage = conversation.ExitOK, conversation.ExitAgentError, conversation.ExitUsage

// env is what every subcommand gets.
type env struct {
	cfg      *config.Config
	log      zerolog.Logger
	registry *adapters.Registry
	hooks    *hooks.Runner // the configured hooks; nil: none
	cwd      string
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	// configPath and trustProject are --config and --trust-project, for
	// loading the config of another directory (an editor session's).
	configPath   string
	trustProject bool
	// flagsTo, when set (flagsOf), gets the flag set the command makes.
	flagsTo **flag.FlagSet
}

type globalFlags struct {
	config, logLevel, logFile string
	trustProject              bool
}

type command struct {
	run            func(ctx context.Context, e *env, args []string) int
	help, examples string
	hidden         bool // left out of help and completion (hub man)
}

var commands = map[string]command{}

// laterSignals receives every SIGINT/SIGTERM after the first (which cancels
// the command's context): `hub run` stops waiting for a graceful end then.
var laterSignals <-chan os.Signal

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	laterSignals = splitSignals(sigs, cancel)
	progName = nameOf(os.Args[0])
	os.Exit(realMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// splitSignals calls cancel on the first signal and passes the later ones
// on (dropping any the reader is not ready for).
func splitSignals(sigs <-chan os.Signal, cancel func()) <-chan os.Signal {
	later := make(chan os.Signal, 1)
	go func() {
		if _, ok := <-sigs; !ok {
			return
		}
		cancel()
		for s := range sigs {
			select {
			case later <- s:
			default:
			}
		}
	}()
	return later
}

func realMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var g globalFlags
	args = extractGlobal(&g, args)
	if len(args) == 0 {
		fmt.Fprint(stderr, named(usage))
		return exitUsage
	}
	name := args[0]
	if name == "help" && len(args) == 2 && args[1] != "" {
		name, args = args[1], []string{args[1], "--help"} // hub help NAME is hub NAME --help
	}
	switch {
	case name == "help" && len(args) > 2:
		fmt.Fprintf(stderr, "%s help: takes one command name\n", progName)
		return exitUsage
	case isHelp(name) || name == "help" && strings.Join(args[1:], "") == "":
		fmt.Fprint(stdout, named(usage))
		return exitOK
	case (name == "version" || name == "help") && slices.ContainsFunc(args[1:], isHelp):
		commandHelp(stdout, name, nil)
		return exitOK
	case name == "version" || name == "--version":
		fmt.Fprintln(stdout, currentBuild())
		return exitOK
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q (run '%s --help')\n", progName, name, progName)
		return exitUsage
	}
	e, closer, err := newEnv(g, stdin, stdout, stderr)
	if err == nil {
		defer closer.Close()
	}
	if slices.ContainsFunc(args[1:], isHelp) {
		// Parse with the command's flags: "--agent -h" and "-- -h" are not help.
		if fs := flagsOf(ctx, describeEnv(e), name); wantsHelp(fs, args[1:]) {
			commandHelp(stdout, name, fs)
			return exitOK
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, named("hub: %v\n"), err)
		if name == "acp" && errors.Is(err, config.ErrInvalid) {
			// An editor shows an error on its new session better than a
			// server that exited: serve, and refuse every session with it.
			return serveBroken(ctx, stdin, stdout, err)
		}
		return exitUsage
	}
	return cmd.run(ctx, e, args[1:])
}

func newEnv(g globalFlags, stdin io.Reader, stdout, stderr io.Writer) (*env, io.Closer, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, fmt.Errorf("current directory: %w", err)
	}
	cfg, err := config.LoadTrusting(cwd, g.config, g.trustProject)
	if err != nil {
		return nil, nil, err
	}
	hk, err := hooks.New(cfg.Hooks)
	if err != nil {
		return nil, nil, err
	}
	level, file := g.logLevel, cmp.Or(g.logFile, cfg.Log.File)
	if level == "" && os.Getenv("HUB_LOG") == "" {
		level = cfg.Log.Level
	}
	log, closer, err := logging.New(level, file)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range cfg.Warnings {
		log.Warn().Msg(w)
	}
	proc.Log = log
	if os.Getenv("HUB_TRACE") == "1" || log.GetLevel() <= zerolog.DebugLevel {
		trace.Enable(&log)
	}
	return &env{cfg: cfg, log: log, registry: all.Registry(cfg, log), hooks: hk, cwd: cwd, stdin: stdin, stdout: stdout, stderr: stderr,
		configPath: g.config, trustProject: g.trustProject}, closer, nil
}

// extractGlobal pulls global flags out of args wherever they appear
// before "--": after it every word is an argument (a prompt's words are
// never flags), and "--" stays for the subcommand's own flags.
func extractGlobal(g *globalFlags, args []string) []string {
	valued := map[string]*string{"config": &g.config, "log-level": &g.logLevel, "log-file": &g.logFile}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		switch p := valued[name]; {
		case a == "--":
			return append(rest, args[i:]...)
		case a == "--trust-project" || a == "-trust-project":
			g.trustProject = true
		case p == nil || !strings.HasPrefix(a, "-"):
			rest = append(rest, a)
		case hasVal && val != "":
			*p = val
		case !hasVal && i+1 < len(args) && args[i+1] != "--":
			*p, i = args[i+1], i+1
		default: // --config= or --config at the end: not a global flag
			rest = append(rest, a)
		}
	}
	return rest
}

// flagSet builds a subcommand flag set that prints nothing itself: e.parse*
// write its errors and help (commandHelp) to stderr.
func (e *env) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if e.flagsTo != nil {
		*e.flagsTo = fs
	}
	return fs
}

// fail writes the message (named) on stderr and returns code.
func (e *env) fail(code int, format string, a ...any) int {
	fmt.Fprintf(e.stderr, named(format), a...)
	return code
}

// printJSON writes v indented, as every --json flag prints.
func printJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return exitOK
}

// table writes header and a tab-separated row per element as aligned columns.
func table[T any](w io.Writer, header string, list []T, row func(T) string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, x := range list {
		fmt.Fprintln(tw, row(x))
	}
	_ = tw.Flush()
}

// parseFlags maps -h to exit 0 (help on stderr) and a bad flag to exit 2
// with one line naming it; ok is false when the command should return code.
func (e *env) parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	return e.parseWith(fs, func() error { return fs.Parse(args) })
}

// parseNoArgs is parseFlags for a command that takes no arguments: one is
// a usage error.
func (e *env) parseNoArgs(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if code, ok = e.parseFlags(fs, args); ok && fs.NArg() > 0 {
		return e.fail(exitUsage, "hub %s: unexpected argument %q (see 'hub %[1]s --help')\n", fs.Name(), fs.Arg(0)), false
	}
	return code, ok
}

// parseInterspersed is parseFlags for commands whose flags may also follow
// their positional arguments (`hub run "fix it" --format jsonl`); "--" ends
// the flags. It returns the positional arguments in order.
func (e *env) parseInterspersed(fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	code, ok = e.parseWith(fs, func() error {
		for {
			if err := fs.Parse(args); err != nil {
				return err
			}
			rest := fs.Args()
			if n := len(args) - len(rest); n > 0 && args[n-1] == "--" || len(rest) == 0 {
				pos = append(pos, rest...)
				return nil
			}
			pos, args = append(pos, rest[0]), rest[1:]
		}
	})
	return pos, code, ok
}

func (e *env) parseWith(fs *flag.FlagSet, parse func() error) (code int, ok bool) {
	switch err := parse(); {
	case errors.Is(err, flag.ErrHelp):
		commandHelp(e.stderr, fs.Name(), fs)
		return exitOK, false
	case err != nil:
		return e.fail(exitUsage, "hub %s: %v (see 'hub %[1]s --help')\n", fs.Name(), err), false
	}
	return 0, true
}
