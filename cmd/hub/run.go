package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/bestof"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/runner"
	"github.com/hubdev/hub/internal/safefile"
	"github.com/hubdev/hub/internal/sandbox"
)

func init() { commands["run"] = described("run", runRun) }

// runClock, when set (tests), is hub run's timer: it fires --timeout.
var runClock func(time.Duration) <-chan time.Time

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func runRun(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("run")
	o := runner.Options{Name: progName, Registry: e.registry, Stdout: e.stdout, Stderr: e.stderr, Log: e.log,
		TranscriptDir: runsDir(), AuditDir: e.cfg.AuditDir(), Rules: e.cfg.Permissions, TrustProject: e.trustProject, Hooks: e.hooks,
		Grants: permission.OpenGrants(permission.GrantsFile(config.StateDir()), nil), ProviderTimeout: e.cfg.Fallback.ProviderTimeout.Duration,
		NoColor: os.Getenv("NO_COLOR") != "", Signals: laterSignals, After: runClock}
	fs.StringVar(&o.Agent, "agent", e.cfg.DefaultAgent, "agent to run (see 'hub agents')")
	fs.StringVar(&o.Model, "model", "", "model id")
	fs.StringVar(&o.Cwd, "cwd", e.cwd, "working directory for the agent")
	fs.DurationVar(&o.Timeout, "timeout", 0, "give up after this long (e.g. 10m; 0 = no limit)")
	fs.StringVar((*string)(&o.Approve), "approve", "read-only", "answer permission requests: all|read-only|none")
	fs.Var((*multiFlag)(&o.Skills), "skill", "activate an Agent Skill by name (repeatable)")
	fs.BoolVar(&o.KeepSkills, "keep-skills", false, "leave natively placed skills in place afterwards")
	fs.Var((*multiFlag)(&o.Images), "image", "attach an image file (repeatable)")
	fs.Var((*multiFlag)(&o.AllowTools), "allow-tool", "allow a tool for this run, in Claude's syntax: Bash(go test:*), Edit(docs/**), WebFetch (repeatable)")
	fs.StringVar(&o.ResumeID, "resume", "", "agent session id to continue (printed by a previous run); last: the latest run of --agent here")
	fs.BoolVar(&o.Continue, "continue", false, "continue the latest run of --agent in this directory (like --resume last)")
	fallback := fs.String("fallback", "", "agents to try in turn when --agent cannot do the work (e.g. codex,gemini; default: the agent's fallback in config)")
	fs.BoolVar(&o.Fork, "fork", false, "with --resume: continue a copy of that session under a new id, leaving it as it was (claude, codex)")
	fs.StringVar((*string)(&o.Format), "format", "text", "output format: text|jsonl")
	sandboxMode := fs.String("sandbox", "", "confine the native loop's shell tool for this run: read-only|workspace-write|off (default: [sandbox] mode)")
	noStream := fs.Bool("no-stream", false, "ask providers for whole answers instead of streamed ones (native loop)")
	fs.Int64Var(&o.MaxTokens, "max-tokens", 0, "stop the run once its input and output tokens pass N; exit 7")
	fs.Float64Var(&o.MaxCost, "max-cost", 0, "stop the run once it has cost more than USD (the agent's report, else a known model price); exit 7")
	fs.IntVar(&o.MaxTurns, "max-turns", 0, "stop the agent after this many turns (model requests of the native loop, claude's --max-turns, tool rounds of the others); exit 7 when it stops so")
	outputSchema := fs.String("output-schema", "", "a JSON Schema FILE (draft 2020-12) the final answer must match: printed as JSON, one repair turn when it does not, else exit 10")
	noTranscript := fs.Bool("no-transcript", false, "write no transcript of this run, whatever transcripts = true says")
	systemPrompt := fs.String("system-prompt", "", "replace the agent's system prompt: TEXT or @FILE (claude, the native loop)")
	appendPrompt := fs.String("append-system-prompt", "", "add to the agent's system prompt: TEXT or @FILE (every agent)")
	fs.BoolVar(&o.NoMask, "no-mask", false, "show secrets (secret-named environment values, API tokens) in the output instead of [masked]")
	var bo bestof.Options
	agentsFlag := fs.String("agents", "", "best of N: run the prompt on each of these agents (e.g. claude,codex), each in its own git worktree")
	fs.IntVar(&bo.N, "n", 1, "with --agents: candidates per agent")
	fs.StringVar(&bo.Check, "check", "", "with --agents: command run in each candidate's worktree; exit 0 passes (e.g. \"go test ./...\")")
	fs.DurationVar(&bo.CheckTimeout, "check-timeout", 10*time.Minute, "with --agents: limit of each check")
	fs.BoolVar(&bo.Apply, "apply", false, "with --agents: bring the winner's change into the working tree (if it did not change meanwhile)")
	fs.BoolVar(&bo.Keep, "keep", false, "with --agents: keep the worktrees and branches")
	fs.IntVar(&bo.Jobs, "jobs", 0, "with --agents: candidates run at once (default: the number of agents)")
	pos, code, ok := e.parseInterspersed(fs, args)
	if !ok {
		return code
	}
	agentFlag, err := runFlags(fs, *agentsFlag != "")
	if err == nil && *agentsFlag == "" {
		err = e.cfg.Untrusted(o.Agent, !agentFlag)
	}
	if err != nil {
		return e.fail(conversation.ExitUsage, "hub run: %v\n", err)
	}
	prompt, fromStdin, err := promptArgs(pos, e.stdin)
	resuming := o.Continue || o.ResumeID != ""
	switch {
	case err != nil && resuming && len(pos) == 0: // a resumed run needs no prompt
		prompt, err = runner.ContinuePrompt, nil
	case err != nil:
		return e.fail(conversation.ExitUsage, "hub run: %v\n", err)
	case fromStdin: // read while the agent starts
		o.ReadPrompt = func() (string, error) {
			p, err := readStdinPrompt(e.stdin)
			if errors.Is(err, errEmptyStdin) && resuming && len(pos) == 0 { // piped, or nothing: "continue"
				return runner.ContinuePrompt, nil
			}
			return p, err
		}
	}
	if *noTranscript {
		o.AuditDir = ""
	}
	if o.SystemPrompt, err = textOrFile(*systemPrompt); err != nil {
		return e.fail(conversation.ExitUsage, "hub run: --system-prompt: %v\n", err)
	}
	if o.AppendSystemPrompt, err = textOrFile(*appendPrompt); err != nil {
		return e.fail(conversation.ExitUsage, "hub run: --append-system-prompt: %v\n", err)
	}
	if *outputSchema != "" {
		if o.OutputSchema, err = safefile.Read(*outputSchema, 1<<20); err != nil {
			return e.fail(conversation.ExitUsage, "hub run: --output-schema: %v\n", err)
		}
	}
	if *sandboxMode != "" || *noStream {
		cfg, err := runConfig(e.cfg, *sandboxMode, *noStream)
		if err != nil {
			return e.fail(conversation.ExitUsage, "hub run: %v\n", err)
		}
		o.Registry = all.Registry(cfg, e.log)
	}
	if dir, err := filepath.Abs(o.Cwd); err == nil && dir != e.cwd { // the personas of --cwd's project
		c := *e.cfg
		c.Cwd = dir
		o.Registry = all.ForCwd(o.Registry, &c, e.log)
	}
	o.Prompt, o.Fallback = prompt, e.cfg.Agents[o.Agent].Fallback
	if *fallback != "" {
		o.Fallback = nil
		for _, n := range strings.Split(*fallback, ",") {
			if n = strings.TrimSpace(n); n == "" {
				continue
			}
			if _, err := o.Registry.Get(n); err != nil { // a typo fails now, not when the turn reaches it
				return e.fail(conversation.ExitUsage, "hub run: --fallback: %v\n", err)
			}
			o.Fallback = append(o.Fallback, n)
		}
	}
	f, ok := e.stderr.(*os.File)
	o.StderrTTY = ok && isatty.IsTerminal(f.Fd())
	if *agentsFlag != "" {
		return runBestOf(ctx, e, o, bo, *agentsFlag)
	}
	return runner.Run(ctx, o).ExitCode
}

// runConfig is the config a run's agents are built from: cfg with the
// run's --sandbox and --no-stream. A flag is the user's own choice, so it
// may widen the sandbox, unlike an untrusted project file.
func runConfig(cfg *config.Config, sandboxMode string, noStream bool) (*config.Config, error) {
	c := *cfg
	if sandboxMode != "" {
		if _, err := sandbox.ParseMode(sandboxMode); err != nil {
			return nil, fmt.Errorf("--sandbox: %w", err)
		}
		c.Sandbox.Mode = sandboxMode
	}
	c.NoStream = c.NoStream || noStream
	return &c, nil
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

func readStdinPrompt(stdin io.Reader) (string, error) {
	data, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("read prompt from stdin: %w", err)
	}
	if p := strings.TrimSpace(string(data)); p != "" {
		return p, nil
	}
	return "", errEmptyStdin
}

var errEmptyStdin = errors.New("no prompt: stdin was empty")

// runBestOf runs the prompt on several agents, each in its own worktree.
func runBestOf(ctx context.Context, e *env, o runner.Options, bo bestof.Options, agents string) int {
	if o.Prompt == "" && o.ReadPrompt != nil {
		p, err := o.ReadPrompt()
		if err != nil {
			return e.fail(conversation.ExitUsage, "hub run: %v\n", err)
		}
		o.Prompt = p
	}
	if err := o.Usable(); err != nil {
		return e.fail(conversation.ExitUsage, "hub run: %v\n", err)
	}
	for _, a := range strings.Split(agents, ",") {
		if a = strings.TrimSpace(a); a != "" {
			if err := e.cfg.Untrusted(a, false); err != nil {
				return e.fail(conversation.ExitUsage, "hub run: --agents: %v\n", err)
			}
			bo.Agents = append(bo.Agents, a)
		}
	}
	if o.Model != "" && len(bo.Agents) > 0 { // a model is one agent's (bestof.Options.Models)
		if slices.ContainsFunc(bo.Agents, func(a string) bool { return a != bo.Agents[0] }) {
			return e.fail(conversation.ExitUsage, "hub run: --model names one agent's model, and --agents names several: set each agent's in config ([agents.NAME] model)\n")
		}
		bo.Models = map[string]string{bo.Agents[0]: o.Model}
	}
	bo.Candidate, bo.Run = bestof.CandidateRun{Registry: o.Registry, Cwd: o.Cwd, Prompt: o.Prompt, Log: e.log}, o.RunCandidate
	return runner.BestOf(ctx, bo, o.Format, e.stdout, e.stderr).ExitCode
}

// notWithAgents are the flags best of N refuses, with why: a candidate is
// one new session of one agent.
var notWithAgents = map[string]string{
	"agent":         "names the one agent of a run, --agents the candidates",
	"output-schema": "holds one agent's answer",
	"resume":        "continues one session, which N candidates cannot all be",
	"continue":      "continues one session, which N candidates cannot all be",
	"fork":          "copies one session, which N candidates cannot all be",
	"fallback":      "would let another agent answer for a candidate, which is one agent",
}

// runFlags refuses the flags set that best of N cannot honour (bestOf) or
// that only it takes (else), and says whether --agent was set.
func runFlags(fs *flag.FlagSet, bestOf bool) (agentFlag bool, err error) {
	fs.Visit(func(f *flag.Flag) {
		agentFlag = agentFlag || f.Name == "agent"
		switch why := notWithAgents[f.Name]; {
		case err != nil:
		case bestOf && why != "":
			err = fmt.Errorf("--%s %s; it does not apply to --agents", f.Name, why)
		case !bestOf && strings.HasPrefix(f.Usage, "with --agents:"): // as its help says
			err = fmt.Errorf("--%s is for best of N; it needs --agents", f.Name)
		}
	})
	return agentFlag, err
}

// textOrFile is a flag's text, or the content of the file named after "@"
// (a regular file of at most 1 MiB).
func textOrFile(v string) (string, error) {
	name, ok := strings.CutPrefix(v, "@")
	if !ok {
		return v, nil
	}
	b, err := safefile.Read(name, 1<<20)
	return string(b), err
}
