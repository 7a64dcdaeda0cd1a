package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/internal/config"
)

// progName is the name hub was installed under (hub, or e.g. hubctl where
// GitHub's hub owns the name): every help text, message and completion
// script uses it.
var progName = "hub"

// nameOf is the command name of argv[0]: its base name without ".exe".
func nameOf(argv0 string) string {
	base := filepath.Base(argv0)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".exe") {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || base == "." || base == string(filepath.Separator) {
		return "hub"
	}
	return base
}

// named puts progName for the word "hub" in a help text: the command, not
// the paths (~/.config/hub, .hub/) or the branch and id prefixes (hub/, hub_).
func named(text string) string {
	if progName == "hub" {
		return text
	}
	return pathWord.ReplaceAllStringFunc(text, func(w string) string {
		if w == "hub" {
			return progName
		}
		return w
	})
}

// pathWord is a run of letters, digits and path punctuation: "hub" is the
// command only when it stands alone as one.
var pathWord = regexp.MustCompile(`[A-Za-z0-9./_-]+`)

//go:embed help
var helpFiles embed.FS

// usage is hub --help.
var usage = helpFile("hub")

func helpFile(name string) string {
	b, _ := helpFiles.ReadFile("help/" + name + ".txt")
	return string(b)
}

// described is the command run whose help and examples (after
// "Examples:") are help/NAME.txt.
func described(name string, run func(ctx context.Context, e *env, args []string) int) command {
	help, examples, _ := strings.Cut(helpFile(name), "\nExamples:\n")
	return command{run: run, help: help, examples: examples}
}

// visibleCommands are the subcommands help, completion and the man page
// name, sorted, with version and help.
func visibleCommands() []string {
	names := []string{"help", "version"}
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// flagsOf is the flag set of a subcommand, read by running it with -h:
// e.flagSet hands the set to flagsTo, and the command returns at its
// parse, before doing anything.
func flagsOf(ctx context.Context, e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if cmd, ok := commands[name]; ok {
		d := *e
		d.stdout, d.stderr, d.stdin, d.flagsTo = io.Discard, io.Discard, strings.NewReader(""), &fs
		cmd.run(ctx, &d, []string{"-h"})
	}
	return fs
}

// describeEnv is an env for reading flag sets: e, the real one, when the
// config loaded, else defaults (help must work with a broken config).
func describeEnv(e *env) *env {
	if e != nil {
		return e
	}
	cfg := &config.Config{}
	cwd, _ := os.Getwd()
	return &env{cfg: cfg, log: zerolog.Nop(), registry: all.Registry(cfg, zerolog.Nop()), cwd: cwd}
}

// wantsHelp tells whether args ask for help: -h, -help or --help before
// "--", and not as the value of a flag that takes one.
func wantsHelp(fs *flag.FlagSet, args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return false
		case isHelp(a):
			return true
		case len(a) > 1 && a[0] == '-' && !strings.Contains(a, "="):
			if f := fs.Lookup(strings.TrimLeft(a, "-")); f != nil && !isBool(f) {
				i++
			}
		}
	}
	return false
}

func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// printFlags lists a flag set's flags as --name TYPE, then the usage.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		line := "  " + dashed(f.Name)
		if typ != "" {
			line += " " + typ
		}
		switch {
		case slices.Contains([]string{"", "false", "0", "0s", "[]"}, f.DefValue):
		case typ == "string":
			usage += fmt.Sprintf(" (default %q)", f.DefValue)
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}

// dashed is a flag as help and completion write it: --name, or -v for a
// one-letter one (hub takes either dash count for both).
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// commandHelp writes a subcommand's help: its text, flags and examples.
func commandHelp(w io.Writer, name string, fs *flag.FlagSet) {
	if name == "version" {
		fmt.Fprint(w, named("Usage: hub version\n\nPrints hub's version, commit, build date and platform on one line,\n"),
			"under any installed name the line of this hub, not GitHub's, e.g.\n\"hub 1.2.0 (commit 0123abc, built 2026-11-25T10:00:00Z, linux/amd64)\".\n")
		return
	}
	if name == "help" {
		fmt.Fprint(w, named("Usage: hub help [COMMAND]\n\nPrints hub's usage, or COMMAND's (as 'hub COMMAND --help' does).\n"))
		return
	}
	fmt.Fprint(w, named(commands[name].help))
	var flags strings.Builder
	if printFlags(&flags, fs); flags.Len() > 0 {
		fmt.Fprint(w, "\nFlags:\n", flags.String())
	}
	if ex := commands[name].examples; ex != "" {
		fmt.Fprintf(w, "\nExamples:\n%s", strings.ReplaceAll(named(ex), "HUB_NAME", progName))
	}
	fmt.Fprint(w, named("\nGlobal flags (--config, --log-level, --log-file, --trust-project): see 'hub --help'.\n"))
}
