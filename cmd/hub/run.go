package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/runner"
)

const runHelp = `Usage: hub run --agent NAME [flags] PROMPT

Runs one prompt headless (CI). The prompt is the argument, or stdin when
PROMPT is "-" or stdin is piped and no argument is given. Flags may come
before or after the prompt; "--" ends them (for a prompt starting with "-").

  --format text   the final answer on stdout; progress on stderr
  --format jsonl  one {"v":1,"type":...} event per line, then a "summary" line

--resume ID continues the agent session a previous run printed; with --fork
it continues a copy under a new id and leaves that session as it was
(claude --fork-session, codex thread/fork; other agents refuse --fork).
--fallback codex,gemini (or fallback = [...] under the agent in config)
tries each agent in turn when the one before could not do the work: not
installed, not logged in, rate-limited past its retries, or crashed, and
only before any tool call started. Each fallback is a stderr line and a
jsonl {"type":"fallback"} event; the summary names the agent that answered
and every attempt; the exit code is the last attempt's.

hub keeps each run's conversation in its state dir (runs/ID.json), so
--resume ID with another --agent starts that agent briefed on it (the same
handover as switching agents in an editor).

Permission requests go through one order: the hard deny list, the config's
deny rules, its allow and ask rules, --allow-tool patterns and the --skill's
allowed-tools; what none of them decides, --approve answers: all (allow
everything), read-only (allow read/search/fetch/think, reject the rest;
default), none. A deny always wins, and names its reason in the summary.

Exit codes:
  0   completed                      4   not authenticated
  1   agent error                    5   timeout
  2   usage error                    6   completed, but a permission was denied
  3   agent not installed            130 interrupted (SIGINT/SIGTERM)
`

func init() { commands["run"] = command{run: runRun, help: runHelp} }

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func runRun(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("run", runHelp, e.stderr)
	o := runner.Options{Registry: e.registry, Stdout: e.stdout, Stderr: e.stderr, Log: e.log,
		TranscriptDir: filepath.Join(config.StateDir(), "runs")}
	var skillNames, images, allowTools multiFlag
	var approve, format string
	fs.StringVar(&o.Agent, "agent", e.cfg.DefaultAgent, "agent to run (see 'hub agents')")
	fs.StringVar(&o.Model, "model", "", "model id")
	fs.StringVar(&o.Cwd, "cwd", e.cwd, "working directory for the agent")
	fs.DurationVar(&o.Timeout, "timeout", 0, "give up after this long (e.g. 10m; 0 = no limit)")
	fs.StringVar(&approve, "approve", "read-only", "answer permission requests: all|read-only|none")
	fs.Var(&skillNames, "skill", "activate an Agent Skill by name (repeatable)")
	fs.BoolVar(&o.KeepSkills, "keep-skills", false, "leave natively placed skills in place afterwards")
	fs.Var(&images, "image", "attach an image file (repeatable)")
	fs.Var(&allowTools, "allow-tool", "allow a tool for this run, in Claude's syntax: Bash(go test:*), Edit(docs/**), WebFetch (repeatable)")
	fs.StringVar(&o.ResumeID, "resume", "", "agent session id to continue (printed by a previous run)")
	fallback := fs.String("fallback", "", "agents to try in turn when --agent cannot do the work (e.g. codex,gemini; default: the agent's fallback in config)")
	fs.BoolVar(&o.Fork, "fork", false, "with --resume: continue a copy of that session under a new id, leaving it as it was (claude, codex)")
	fs.StringVar(&format, "format", "text", "output format: text|jsonl")
	pos, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	agentFlag := false
	fs.Visit(func(f *flag.Flag) { agentFlag = agentFlag || f.Name == "agent" })
	if err := untrustedAgent(e.cfg, o.Agent, !agentFlag); err != nil {
		fmt.Fprintf(e.stderr, "hub run: %v\n", err)
		return runner.ExitUsage
	}
	prompt, fromStdin, err := promptArgs(pos, e.stdin)
	if err != nil {
		fmt.Fprintf(e.stderr, "hub run: %v\n", err)
		return runner.ExitUsage
	}
	if fromStdin { // read while the agent starts
		o.ReadPrompt = func() (string, error) { return readStdinPrompt(e.stdin) }
	}
	o.Prompt, o.Approve, o.Format = prompt, runner.Approve(approve), runner.Format(format)
	o.Skills, o.Images, o.AllowTools, o.Rules = skillNames, images, allowTools, e.cfg.Permissions
	o.Fallback = e.cfg.Agents[o.Agent].Fallback
	if *fallback != "" {
		o.Fallback = nil
		for _, n := range strings.Split(*fallback, ",") {
			if n = strings.TrimSpace(n); n != "" {
				o.Fallback = append(o.Fallback, n)
			}
		}
	}
	if f, ok := e.stderr.(*os.File); ok {
		o.StderrTTY = isatty.IsTerminal(f.Fd())
	}
	o.NoColor = os.Getenv("NO_COLOR") != ""
	o.Signals = laterSignals
	return runner.Run(ctx, o).ExitCode
}

// promptArgs takes the prompt from the positional args; fromStdin says it
// is to be read from stdin instead ("-", or piped with no argument).
func promptArgs(rest []string, stdin io.Reader) (prompt string, fromStdin bool, err error) {
	if len(rest) == 1 && rest[0] == "-" {
		return "", true, nil
	}
	if len(rest) == 0 {
		if f, ok := stdin.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			return "", false, fmt.Errorf("no prompt: pass it as an argument or on stdin")
		}
		return "", true, nil
	}
	p := strings.Join(rest, " ")
	if strings.TrimSpace(p) == "" {
		return "", false, fmt.Errorf("no prompt: the argument is empty")
	}
	return p, false, nil
}

// readStdinPrompt reads the whole prompt from stdin.
func readStdinPrompt(stdin io.Reader) (string, error) {
	data, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("read prompt from stdin: %w", err)
	}
	if p := strings.TrimSpace(string(data)); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("no prompt: stdin was empty")
}
