package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
)

func init() {
	man := described("man", runMan)
	man.hidden = true
	commands["man"] = man
}

// runMan writes hub(1): the usage, then every subcommand's help, flags
// and examples, from the same texts and flag sets as --help.
func runMan(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("man")
	if code, ok := e.parseNoArgs(fs, args); !ok {
		return code
	}
	w, up := e.stdout, strings.ToUpper(progName)
	fmt.Fprintf(w, ".TH %s 1 \"\" \"%s %s\" \"User Commands\"\n", roff(up), roff(progName), roff(currentBuild().Version))
	fmt.Fprintf(w, ".SH NAME\n%s \\- drive coding agents (claude, codex, gemini, ACP agents, OpenAI-compatible endpoints) from editors and CI\n", roff(progName))
	fmt.Fprintf(w, ".SH SYNOPSIS\n.B %s\n.I command\n[\\fIflags\\fR] [\\fIarguments\\fR]\n", roff(progName))
	fmt.Fprintf(w, ".SH DESCRIPTION\n.nf\n%s.fi\n.SH COMMANDS\n", roffText(named(usage)))
	for _, name := range visibleCommands() {
		fmt.Fprintf(w, ".SS \"%s %s\"\n", roff(progName), name)
		var help bytes.Buffer
		fs := flagsOf(ctx, e, name)
		commandHelp(&help, name, flag.NewFlagSet(name, flag.ContinueOnError)) // flags below, as .TP
		text, ex, _ := strings.Cut(help.String(), "\nExamples:\n")
		text, _, _ = strings.Cut(text, "\nGlobal flags")
		fmt.Fprintf(w, ".nf\n%s.fi\n", roffText(text))
		fs.VisitAll(func(f *flag.Flag) {
			typ, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(w, ".TP\n.B %s", roff(dashed(f.Name)))
			if typ != "" {
				fmt.Fprintf(w, " \\fI%s\\fR", roff(typ))
			}
			fmt.Fprintf(w, "\n%s\n", roff(usage))
		})
		if ex != "" {
			ex, _, _ = strings.Cut(ex, "\nGlobal flags")
			fmt.Fprintf(w, ".PP\nExamples:\n.nf\n%s.fi\n", roffText(ex))
		}
	}
	fmt.Fprintf(w, ".SH EXIT STATUS\n0 success, 1 error, 2 usage error; '%s run \\-\\-help' lists more.\n", roff(progName))
	fmt.Fprintf(w, ".SH SEE ALSO\n%s help COMMAND, %s completion SHELL\n", roff(progName), roff(progName))
	return exitOK
}

// roff escapes one line of text for roff: backslashes, and a leading
// dot or quote that would start a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffText escapes every line of a block, ending it with a newline.
func roffText(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(roff(l) + "\n")
	}
	return b.String()
}
