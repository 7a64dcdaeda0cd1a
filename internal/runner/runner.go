// Package runner runs one prompt against one agent headless, for CI: it
// answers permission requests from a fixed policy, prints the answer (text)
// or every normalized event (jsonl), and maps the outcome to an exit code.
// Timeouts, signals and the clock are injectable so every path is testable.
package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/rs/zerolog"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/mask"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/skills"
)

// ErrUsage marks a bad command line or option.
var ErrUsage = errors.New("usage error")

type Format string

const (
	FormatText  Format = "text"
	FormatJSONL Format = "jsonl"
)

type Options struct {
	Name     string // the command's name in messages: a packager may rename hub ("": hub)
	Registry *adapters.Registry
	Agent    string
	Model    string
	Cwd      string
	Timeout  time.Duration // 0 = none
	Approve  conversation.Approve
	// Ask, when set, answers what the rules leave open instead of Approve,
	// and the agent asks before every side effect (/compare: the editor).
	Ask        conversation.Answerer
	Rules      config.PermissionsConfig
	AllowTools []string           // more allow patterns for this run (Claude syntax)
	Grants     *permission.Grants // "always allow" answers kept in hub acp; nil: none
	Skills     []string
	// skills are the --skill skills found; allow the rules --allow-tool and
	// their allowed-tools add; notes what the run warns of about them.
	skills        []skills.Skill
	allow         []permission.Rule
	notes         []string
	SkillsUserDir string // overrides config.UserDir() for skill lookup
	// TrustProject trusts the project's skills (--trust-project): their
	// allowed-tools apply although 'hub trust' did not record them.
	TrustProject bool
	KeepSkills   bool // leave natively placed skills in place after the run
	Images       []string
	// SystemPrompt replaces the agent's system prompt where it can be;
	// AppendSystemPrompt adds to it for every agent.
	SystemPrompt, AppendSystemPrompt string
	ResumeID                         string
	from                             *runRecord // the record of the session ResumeID names, if hub has it
	// The budgets (0: none) are the run's, shared by its turns and attempts;
	// one passed exits conversation.ExitBudget. MaxTurns is
	// SessionOptions.MaxTurns for an agent with Capabilities.TurnBudget,
	// else hub counts the agent's tool rounds. MaxCost is in USD.
	MaxTurns  int
	MaxTokens int64
	MaxCost   float64
	// OutputSchema is a self-contained JSON Schema the final answer must
	// match: an invalid one gets a repair turn, then the run exits
	// conversation.ExitSchema.
	OutputSchema json.RawMessage
	schema       *jsonschema.Schema // OutputSchema compiled
	// Continue resumes the agent's latest run in Cwd (--continue, or
	// ResumeID "last"), found in TranscriptDir.
	Continue bool
	// Fallback are the agents tried in turn when Agent cannot do the work
	// (conversation.FallbackReason) before any tool call started.
	Fallback []string
	// ProviderTimeout bounds how long a provider may keep failing before
	// the next agent takes over (0: conversation.DefaultProviderTimeout).
	ProviderTimeout time.Duration
	Fork            bool   // continue a copy of ResumeID's session, leaving it as it was
	Candidate       string // a best-of-N candidate's name, carried by its jsonl lines
	// TranscriptDir keeps each run's conversation by the session id it
	// printed (--resume ID with another agent briefs it); "": none.
	TranscriptDir string
	AuditDir      string // config transcripts = true: the Event stream goes there as JSONL
	// Hooks are the configured command hooks; for an agent that does not
	// run them itself they observe its Event stream. nil: none.
	Hooks      *hooks.Runner
	MCPServers []adapters.MCPServer // those of a type the agent takes go to it
	Format     Format
	Prompt     string
	ReadPrompt func() (string, error) // reads the prompt (stdin) while the agent starts, when Prompt is empty

	Stdout, Stderr io.Writer
	// StderrTTY enables the spinner and, unless NoColor, colours.
	StderrTTY bool
	NoColor   bool
	NoMask    bool         // else stdout and stderr are masked
	Mask      *mask.Masker // nil: mask.Default()
	Log       zerolog.Logger

	// Signals, when set, interrupts the run like cancelling ctx does; a
	// second signal skips the graceful wait.
	Signals <-chan os.Signal
	// Now and After replace the clock (tests).
	Now     func() time.Time
	After   func(time.Duration) <-chan time.Time
	Grace   time.Duration // how long a cancelled start or turn may take to end before it is closed (default 5s)
	StopAll func()        // ends every process hub started, so none outlives the run (default proc.StopAll)
}

func (o *Options) defaults() error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.StopAll == nil {
		o.StopAll = func() { proc.StopAll(2 * time.Second) }
	}
	o.Grace = cmp.Or(max(o.Grace, 0), 5*time.Second)
	o.Stdout, o.Stderr = cmp.Or(o.Stdout, io.Discard), cmp.Or(o.Stderr, io.Discard)
	o.Name, o.Format = cmp.Or(o.Name, "hub"), cmp.Or(o.Format, FormatText)
	o.Approve = cmp.Or(o.Approve, conversation.ApproveReadOnly)
	switch {
	case o.Format != FormatText && o.Format != FormatJSONL:
		return fmt.Errorf("%w: --format must be text or jsonl, not %q", ErrUsage, o.Format)
	case !o.Approve.Valid():
		return fmt.Errorf("%w: --approve must be all, read-only or none, not %q", ErrUsage, o.Approve)
	case o.Agent == "":
		return fmt.Errorf("%w: --agent is required", ErrUsage)
	case o.Prompt == "" && len(o.Images) == 0 && o.ReadPrompt == nil:
		return fmt.Errorf("%w: empty prompt", ErrUsage)
	case o.Timeout < 0:
		return fmt.Errorf("%w: --timeout must be positive", ErrUsage)
	case o.MaxTurns < 0:
		return fmt.Errorf("%w: --max-turns must be positive", ErrUsage)
	}
	return cmp.Or(o.compileSchema(), o.prepare(), o.resolveResume()) // in order; the first error wins
}

// Denial is a permission hub rejected on the user's behalf.
type Denial = conversation.Refusal

// Summary is the outcome of a run; jsonl prints it as the last line. A
// field without omitempty is always there: "" or null when unknown or
// none, but denied is [].
type Summary struct {
	// Agent is the agent that answered: the last one tried.
	Agent      string              `json:"agent"`
	StopReason adapters.StopReason `json:"stopReason"`
	// Budget names the limit that stopped the run: "turns", "tokens" or "cost".
	Budget         string `json:"budget,omitempty"`
	AgentSessionID string `json:"agentSessionId"`
	// Model is the one the agent reported using, else the one asked for.
	Model string `json:"model,omitempty"`
	// Usage is summed over the run: every model request and every attempt.
	Usage *adapters.Usage `json:"usage"`
	// Cost is in USD: the agents' report, else conversation/prices.json's.
	Cost *float64 `json:"cost,omitempty"`
	// FilesChanged are the files in Cwd's git repository the run changed
	// (whoever wrote them: an edit tool or a shell command); outside a git
	// repository, the files the edit tools named; null when none.
	FilesChanged []conversation.FileChange `json:"filesChanged"`
	// DurationMs is the wall time of the whole run, every attempt included.
	DurationMs int64    `json:"durationMs"`
	Denied     []Denial `json:"denied"`
	ExitCode   int      `json:"exitCode"`
	Error      string   `json:"error,omitempty"`
	// Detail carries the agent's last stderr lines after a crash.
	Detail string `json:"detail,omitempty"`
	// Attempts are the agents the run reached, in order, when --fallback
	// named more: each tried, or passed over as unknown or not ready.
	Attempts []Attempt `json:"attempts,omitempty"`
	// Output is the final answer --output-schema validated, as JSON.
	Output json.RawMessage `json:"output,omitempty"`
	// Warnings did not stop the run but may surprise.
	Warnings []string `json:"warnings,omitempty"`
	// Answer is what text format prints on stdout: the final answer of a
	// completed run (exit 0 or 6), else all the text that arrived. Not in
	// jsonl, whose text events carry it.
	Answer string `json:"-"`
	// Resumable says whether the agent can continue AgentSessionID with
	// --resume; text format prints the hint only then.
	Resumable bool `json:"-"`
}

// Run executes one prompt and returns the summary; ExitCode is what the
// process should exit with. Cancelling ctx interrupts (exit 130).
func Run(ctx context.Context, o Options) Summary {
	err := o.defaults()
	var release func()
	if err == nil {
		release, err = o.holdSession()
	}
	out := newOutput(o)
	var s Summary
	if err != nil {
		s = (&run{o: o, out: out}).summary(conversation.ExitUsage, err)
		s.Agent = o.Agent
	} else {
		defer release()
		s = runChain(ctx, o, out)
	}
	out.close()
	out.summary(s)
	return s
}

// classifyStartError maps an error before the turn started to an exit code.
func classifyStartError(err error) int {
	switch c := conversation.ClassifyStart(err); {
	case errors.Is(err, ErrUsage), errors.Is(err, adapters.ErrUnknownAgent), errors.Is(err, adapters.ErrUnsupported),
		errors.Is(err, adapters.ErrBadCwd):
		return conversation.ExitUsage
	case errors.Is(err, context.DeadlineExceeded):
		return conversation.ExitTimeout
	case errors.Is(err, context.Canceled):
		return conversation.ExitInterrupted
	case c == conversation.ClassNotInstalled:
		return conversation.ExitNotInstalled
	case c == conversation.ClassAuth:
		return conversation.ExitNotAuthenticated
	}
	return conversation.ExitAgentError
}

// Attempt is one agent a run tried, in order (Summary.Attempts).
type Attempt struct {
	Agent    string `json:"agent"`
	ExitCode int    `json:"exitCode"`
	Error    string `json:"error,omitempty"`
	// Detail is the attempt's failure in more lines (a crash's stderr).
	Detail string `json:"detail,omitempty"`
	// Fallback says why the next agent was tried after this one.
	Fallback string `json:"fallback,omitempty"`
}

// runChain runs the agent and, when it could not do the work, the
// fallback agents; the summary is the last attempt's, with every attempt.
// No agent takes over once a budget is used up.
func runChain(ctx context.Context, o Options, out *output) Summary {
	var attempts []Attempt
	var s Summary
	var usage *adapters.Usage
	var cur int // attempts[cur] is the running attempt's
	r, start := &run{}, o.Now()
	for _, n := range o.notes { // told once; every attempt's summary carries them
		out.warning(n)
	}
	o.Registry = conversation.FallbackAgents(o.Registry, o.Agent, o.Fallback)
	walk := conversation.Fallbacks{Registry: o.Registry, List: o.Fallback, Ready: adapters.Ready, Skipped: func(agent string, err error) {
		attempts = append(attempts, Attempt{Agent: agent, ExitCode: classifyStartError(err), Error: oneLine(err.Error())})
	}}
	why := walk.Walk(ctx, o.Agent, func(agent string, watch bool) (conversation.Class, bool) {
		r = &run{o: o, out: out, digest: r.digest.Retry(), warnings: slices.Clip(o.notes), prior: cmp.Or(r.budget, r.prior)}
		if r.o.Agent = agent; agent != o.Agent && o.from == nil {
			r.o.ResumeID, r.o.Fork = "", false // another agent cannot resume the first one's session
		}
		s, cur = r.execute(ctx, watch), len(attempts)
		class, toolStarted := r.failureClass(s), len(r.digest.ToolCalls) > 0
		if watch && r.outOfBudget(conversation.FallbackReason(agent, class, toolStarted)) {
			s, class = r.finish(errOverBudget), conversation.ClassNone
		}
		usage = conversation.AddUsage(usage, s.Usage)
		attempts = append(attempts, Attempt{Agent: agent, ExitCode: s.ExitCode, Error: s.Error, Detail: s.Detail})
		return class, toolStarted
	}, func(from, to, why string) {
		attempts[cur].Fallback = why
		out.fallback(from, to, why)
		if r.promptText != "" { // read once: the next agent gets the same prompt
			o.Prompt, o.ReadPrompt = r.promptText, nil
		}
	})
	if why != "" && ctx.Err() != nil { // interrupted as the next agent was to take over
		s = r.finish(errInterrupted)
	}
	s.Agent, s.Usage, s.DurationMs = r.o.Agent, usage, o.Now().Sub(start).Milliseconds()
	if usage != nil {
		s.Cost = usage.CostUSD
	}
	if len(o.Fallback) > 0 {
		s.Attempts = attempts
	}
	return s
}

// outOfBudget says the run passed a budget, so no next agent takes over
// what this attempt could not do (why; "": it stands): the budget stops
// the run, saying both.
func (r *run) outOfBudget(why string) bool {
	if why == "" || r.budget == nil {
		return false
	}
	over, kind := r.budget.over()
	if kind != "" {
		r.budget.signal(why+", and the run passed "+over+": no other agent takes over", kind)
	}
	return kind != ""
}

// failureClass is how the attempt failed, for conversation's fallback
// rule; none when its outcome stands (done, interrupted, timed out,
// refused, a usage error).
func (r *run) failureClass(s Summary) conversation.Class {
	switch s.ExitCode {
	case conversation.ExitNotInstalled, conversation.ExitNotAuthenticated, conversation.ExitAgentError:
		return cmp.Or(conversation.Classify(r.failure), conversation.Classify(r.digest.Fatal), conversation.ClassifyStart(r.startErr))
	}
	return conversation.ClassNone
}
