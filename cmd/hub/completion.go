package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/hubdev/hub/adapters"
)

const completionHelp = `Usage: hub completion bash|zsh|fish|powershell

Prints the shell's completion script for hub: subcommands, each one's
flags, and agent names for --agent and 'hub login' (asked of
'hub agents --names' as you type, so configured agents are offered too).
The script completes the name hub was installed under.
`

var shells = []string{"bash", "zsh", "fish", "powershell"}

func init() {
	commands["completion"] = command{run: runCompletion, help: completionHelp}
}

// completionSpec is what a completion script knows of one subcommand.
type completionSpec struct {
	name  string
	flags []*flag.Flag
	// words are its fixed arguments (sessions list|show|...); agents
	// says its argument is an agent name.
	words  []string
	agents bool
}

func runCompletion(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("completion", e.stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return e.fail(exitUsage, "hub completion: name one shell: %s\n", strings.Join(shells, ", "))
	}
	script, ok := map[string]func(io.Writer, []completionSpec){"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion,
		"powershell": powershellCompletion, "pwsh": powershellCompletion}[fs.Arg(0)]
	if !ok {
		return e.fail(exitUsage, "hub completion: unknown shell %q (want %s)\n", fs.Arg(0), strings.Join(shells, ", "))
	}
	script(e.stdout, completionSpecs(ctx, e))
	return exitOK
}

func completionSpecs(ctx context.Context, e *env) []completionSpec {
	words := map[string][]string{
		"sessions": {"list", "show", "export", "rm"}, "grants": {"list", "revoke", "clear"},
		"skills": {"list"}, "completion": shells, "help": visibleCommands(),
	}
	var out []completionSpec
	for _, name := range visibleCommands() {
		s := completionSpec{name: name, words: words[name], agents: name == "login" || name == "logout"}
		flagsOf(ctx, e, name).VisitAll(func(f *flag.Flag) { s.flags = append(s.flags, f) })
		out = append(out, s)
	}
	return out
}

// flagWords are a spec's flags as --name words.
func (s completionSpec) flagWords() string {
	var w []string
	for _, f := range s.flags {
		w = append(w, dashed(f.Name))
	}
	return strings.Join(w, " ")
}

// funcName is progName as a shell identifier.
func funcName() string { return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(progName, "_") }

// sq quotes s for a POSIX shell (and fish, whose single quotes also take
// \' and \\).
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func bashCompletion(w io.Writer, specs []completionSpec) {
	fn, p := "_"+funcName()+"_complete", sq(progName)
	agents := fmt.Sprintf(`COMPREPLY=($(compgen -W "$(%s agents --names 2>/dev/null)" -- "$cur"))`, p)
	fmt.Fprintf(w, "# bash completion for %s (%s completion bash)\n%s() {\n", progName, progName, fn)
	fmt.Fprint(w, "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" cmd=\"\" i\n")
	fmt.Fprintf(w, findCommand, 1, "COMP_CWORD", "COMP_WORDS")
	fmt.Fprintf(w, "    case \"$prev\" in\n        --agent|-agent)\n            %s; return ;;\n    esac\n", agents)
	commandCases(w, specs, func(ws string) string { return "COMPREPLY=($(compgen -W " + sq(ws) + " -- \"$cur\"))" }, agents, "[[ $cur == -* ]]", "")
	fmt.Fprintf(w, "}\ncomplete -o default -F %s %s\n", fn, p)
}

func zshCompletion(w io.Writer, specs []completionSpec) {
	fn, p := "_"+funcName(), sq(progName)
	agents := fmt.Sprintf(`compadd -- ${(f)"$(%s agents --names 2>/dev/null)"}`, p)
	fmt.Fprintf(w, "#compdef %s\n# zsh completion for %s (%s completion zsh)\n%s() {\n    local cmd=\"\" i\n", progName, progName, progName, fn)
	fmt.Fprintf(w, findCommand, 2, "CURRENT", "words")
	fmt.Fprintf(w, "    if [[ \"${words[CURRENT-1]}\" == (--agent|-agent) ]]; then\n        %s; return\n    fi\n", agents)
	commandCases(w, specs, func(ws string) string { return "compadd -- " + ws }, agents, `[[ "$PREFIX" == -* ]]`, "_files")
	// Autoloaded from fpath the file is _hub's body: complete now; sourced, register.
	fmt.Fprintf(w, "}\nif [[ \"${funcstack[1]}\" == %s ]]; then\n    %s \"$@\"\nelif (( $+functions[compdef] )); then\n    compdef %s %s\nfi\n", sq(fn), fn, fn, p)
}

// findCommand is bash's and zsh's loop that finds the subcommand among the
// words before the cursor (the array %[3]s from %[1]d to before %[2]s),
// skipping the global flags and their values.
const findCommand = `    for ((i = %[1]d; i < %[2]s; i++)); do
        case "${%[3]s[i]}" in
            --) return ;;
            --config|--log-level|--log-file|-config|-log-level|-log-file) ((i++)) ;;
            -*) ;;
            *) [[ -z $cmd ]] && cmd="${%[3]s[i]}" ;;
        esac
    done
`

// commandCases writes bash's and zsh's case over the subcommand: offer is
// how the shell offers words, agents its offer of agent names, isFlag its
// test for a flag being typed, other what it offers for other words.
func commandCases(w io.Writer, specs []completionSpec, offer func(string) string, agents, isFlag, other string) {
	fmt.Fprintf(w, "    case \"$cmd\" in\n        \"\") %s ;;\n", offer(strings.Join(visibleCommands(), " ")+" --help --version --config --log-level --log-file --trust-project"))
	for _, s := range specs {
		fmt.Fprintf(w, "        %s)\n            if %s; then %s\n", sq(s.name), isFlag, offer(s.flagWords()+" --help"))
		alt := other
		switch {
		case s.agents:
			alt = agents
		case len(s.words) > 0:
			alt = offer(strings.Join(s.words, " "))
		}
		if alt != "" {
			fmt.Fprintf(w, "            else %s\n", alt)
		}
		fmt.Fprint(w, "            fi ;;\n")
	}
	fmt.Fprint(w, "    esac\n")
}

func fishCompletion(w io.Writer, specs []completionSpec) {
	p := sq(progName)
	agents := sq("(" + progName + " agents --names 2>/dev/null)")
	fmt.Fprintf(w, "# fish completion for %s (%s completion fish)\ncomplete -c %s -f\n", progName, progName, p)
	for _, g := range [][2]string{{"config", "-r -F -d 'use FILE instead of the user config'"}, {"log-level", "-x -a 'trace debug info warn error'"},
		{"log-file", "-r -F -d 'write logs to FILE'"}, {"trust-project", "-d 'trust the project config for this run'"}, {"help", "-s h -d 'show help'"}} {
		fmt.Fprintf(w, "complete -c %s -l %s %s\n", p, g[0], g[1])
	}
	for _, s := range specs {
		fmt.Fprintf(w, "complete -c %s -n __fish_use_subcommand -a %s\n", p, sq(s.name))
	}
	for _, s := range specs {
		cond := sq("__fish_seen_subcommand_from " + s.name)
		for _, f := range s.flags {
			_, usage := flag.UnquoteUsage(f)
			extra := ""
			switch {
			case f.Name == "agent":
				extra = " -x -a " + agents
			case !isBool(f):
				extra = " -r -F"
			}
			opt := "-l " + f.Name
			if len(f.Name) == 1 {
				opt = "-s " + f.Name
			}
			fmt.Fprintf(w, "complete -c %s -n %s %s -d %s%s\n", p, cond, opt, sq(adapters.FirstLine(usage)), extra)
		}
		switch {
		case s.agents:
			fmt.Fprintf(w, "complete -c %s -n %s -x -a %s\n", p, cond, agents)
		case len(s.words) > 0:
			fmt.Fprintf(w, "complete -c %s -n %s -x -a %s\n", p, cond, sq(strings.Join(s.words, " ")))
		}
	}
}

func powershellCompletion(w io.Writer, specs []completionSpec) {
	ps := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	list := func(words []string) string {
		var q []string
		for _, x := range words {
			q = append(q, ps(x))
		}
		return "@(" + strings.Join(q, ", ") + ")"
	}
	fmt.Fprintf(w, "# PowerShell completion for %s (%s completion powershell)\n", progName, progName)
	fmt.Fprintf(w, "Register-ArgumentCompleter -Native -CommandName %s -ScriptBlock {\n", list([]string{progName, progName + ".exe"}))
	fmt.Fprint(w, "    param($wordToComplete, $commandAst, $cursorPosition)\n    $flags = @{\n")
	for _, s := range specs {
		words := strings.Fields(s.flagWords() + " --help")
		fmt.Fprintf(w, "        %s = %s\n", ps(s.name), list(words))
	}
	fmt.Fprint(w, "    }\n    $args_ = @{\n")
	for _, s := range specs {
		if len(s.words) > 0 {
			fmt.Fprintf(w, "        %s = %s\n", ps(s.name), list(s.words))
		}
	}
	fmt.Fprintf(w, "    }\n    $commands = %s\n", list(visibleCommands()))
	fmt.Fprintf(w, "    $agentCommands = %s\n", list([]string{"login", "logout"}))
	fmt.Fprintf(w, "    $self = %s\n", ps(progName))
	fmt.Fprint(w, `    $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
    $last = $words.Count
    if ($wordToComplete -ne '') { $last = $words.Count - 1 }
    $cmd = $null
    for ($i = 1; $i -lt $last; $i++) {
        if ($words[$i] -eq '--') { return }
        if (@('--config', '--log-level', '--log-file') -contains $words[$i]) { $i++; continue }
        if (-not $cmd -and -not $words[$i].StartsWith('-')) { $cmd = $words[$i] }
    }
    $prev = if ($last -ge 1) { $words[$last - 1] } else { '' }
    if ($prev -eq '--agent' -or $prev -eq '-agent') {
        $candidates = @(& $self agents --names 2>$null)
    } elseif (-not $cmd) {
        $candidates = $commands + @('--help', '--version', '--config', '--log-level', '--log-file', '--trust-project')
    } elseif ($wordToComplete.StartsWith('-')) {
        $candidates = $flags[$cmd]
    } elseif ($agentCommands -contains $cmd) {
        $candidates = @(& $self agents --names 2>$null)
    } else {
        $candidates = $args_[$cmd]
    }
    $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
    }
}
`)
}
