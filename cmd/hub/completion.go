package main

import (
	"cmp"
	"context"
	"embed"
	"flag"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"github.com/hubdev/hub/adapters"
)

var shells = []string{"bash", "zsh", "fish", "powershell"}

func init() { commands["completion"] = described("completion", runCompletion) }

// completionFiles hold one script template per shell, given completionData.
//
//go:embed completion/*.tmpl
var completionFiles embed.FS

var completionScripts = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		// POSIX shells, and fish, whose single quotes also take \' and \\
		"sq":    func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" },
		"ps":    func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" },
		"join":  func(words []string) string { return strings.Join(words, " ") },
		"usage": func(f *flag.Flag) string { _, u := flag.UnquoteUsage(f); return adapters.FirstLine(u) },
		"psList": func(words []string) string {
			return "@('" + strings.Join(words, "', '") + "')" // flag names and commands: no quote in them
		},
		"isBool": isBool,
	}).ParseFS(completionFiles, "completion/*.tmpl"))
})

// completionData is what a script is made of: Func is Prog as a shell
// identifier; Top are the words offered before the subcommand.
type completionData struct {
	Prog, Func    string
	Commands, Top []string
	Specs         []completionSpec
}

// completionSpec is what a completion script knows of one subcommand.
type completionSpec struct {
	Name  string
	Flags []*flag.Flag
	// FlagWords are its flags as --name words, then --help; Words its
	// fixed arguments (sessions list|show|...); Agents says its argument
	// is an agent name.
	FlagWords, Words []string
	Agents           bool
}

func runCompletion(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("completion")
	if code, ok := e.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return e.fail(exitUsage, "hub completion: name one shell: %s\n", strings.Join(shells, ", "))
	}
	script := completionScripts().Lookup(cmp.Or(map[string]string{"pwsh": "powershell"}[fs.Arg(0)], fs.Arg(0)) + ".tmpl")
	if script == nil {
		return e.fail(exitUsage, "hub completion: unknown shell %q (want %s)\n", fs.Arg(0), strings.Join(shells, ", "))
	}
	cmds := visibleCommands()
	_ = script.Execute(e.stdout, completionData{Prog: progName, Func: regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(progName, "_"),
		Commands: cmds, Top: append(cmds, "--help", "--version", "--config", "--log-level", "--log-file", "--trust-project"),
		Specs: completionSpecs(ctx, e)})
	return exitOK
}

func completionSpecs(ctx context.Context, e *env) []completionSpec {
	words := map[string][]string{
		"sessions": {"list", "show", "export", "rm"}, "grants": {"list", "revoke", "clear"},
		"skills": {"list"}, "completion": shells, "help": visibleCommands(),
	}
	var out []completionSpec
	for _, name := range visibleCommands() {
		s := completionSpec{Name: name, Words: words[name], Agents: name == "login" || name == "logout"}
		flagsOf(ctx, e, name).VisitAll(func(f *flag.Flag) { s.Flags, s.FlagWords = append(s.Flags, f), append(s.FlagWords, dashed(f.Name)) })
		s.FlagWords = append(s.FlagWords, "--help")
		out = append(out, s)
	}
	return out
}
