package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/delegation"
	transcripts "github.com/hubdev/hub/internal/transcript"
)

// Why a run stops early: the cause its context is cancelled with.
var (
	errInterrupted = errors.New("interrupted")
	errTimedOut    = errors.New("timeout")
	errOverBudget  = errors.New("budget") // --max-tokens, --max-cost or counted --max-turns was reached
)

type run struct {
	o   Options
	out *output

	digest     conversation.Digest // the run's turns (a repair turn is the second)
	shown      *adapters.ErrorInfo // the last fatal error shown
	budget     *budget             // --max-tokens, --max-cost and counted --max-turns
	prior      *budget             // the budget as the run's earlier attempts left it (nil: none)
	budgetHit  string              // the limit that stopped the run (Summary.Budget)
	warnings   []string
	failure    *adapters.ErrorInfo // why the turn failed, if it did
	stop       adapters.StopReason
	resumable  bool
	startErr   error              // the agent failed to start, or to take the prompt
	promptText string             // as read once: the next agent's, and this turn's in the record
	gate       *conversation.Gate // the session's permission gate
	output     json.RawMessage    // the answer --output-schema validated
	schemaErr  error              // why the repaired answer still did not match

	agent   *conversation.Agent     // the agent session the run starts and prompts
	starts  sync.WaitGroup          // the agent's start in flight
	ctx     context.Context         // the start's and the turns': its cause says why the run stopped early
	cancel  context.CancelCauseFunc // cancels the start and the turn
	done    <-chan struct{}         // ctx's, until it fired
	timeout <-chan time.Time        // until it fired
}

// execute is one attempt of the run; watch says a next agent takes over
// if this one cannot work.
func (r *run) execute(ctx context.Context, watch bool) Summary {
	a, err := r.o.Registry.Get(r.o.Agent)
	if err != nil {
		return r.summary(classifyStartError(err), err)
	}
	caps := a.Capabilities()
	r.resumable = caps.Resume
	so, prefix, cleanup, err := r.sessionOptions(a.Name(), caps)
	defer cleanup()
	if err != nil {
		return r.summary(classifyStartError(err), err)
	}
	so.Env = delegation.ChainEnv(a)
	r.handover(a.Name(), caps, &so, &prefix)
	model := cmp.Or(so.Model, caps.DefaultModel)
	r.budget = newBudget(r.o, model, !caps.TurnBudget).carry(r.prior, &r.digest)
	if _, priced := conversation.PriceOf(model); r.o.MaxCost > 0 && !caps.ReportsCost && !priced {
		return r.summary(conversation.ExitUsage, fmt.Errorf("%w: --max-cost: %s reports no cost and its model %q has no known price (conversation/prices.json)", ErrUsage, a.Name(), model))
	}
	if !caps.Permissions && r.o.Approve != conversation.ApproveAll && r.o.Ask == nil {
		r.warn("%s cannot ask for permission: its tools run without asking, whatever --approve %s says", a.Name(), r.o.Approve)
	}
	runCtx, cancelRun := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelRun(nil)
	defer r.o.StopAll()
	r.ctx, r.cancel, r.done = runCtx, cancelRun, ctx.Done()
	if r.o.Timeout > 0 {
		r.timeout = r.o.After(r.o.Timeout)
	}
	// The agent starts (conversation.Agent) while the prompt is read and
	// the images loaded. A failed --resume fails the run: a CI script that
	// names a session must not get an answer from an agent that lost it.
	r.agent = &conversation.Agent{Want: func() conversation.Setup { return conversation.Setup{} }, Now: r.o.Now, Starts: &r.starts,
		Start: func(ctx context.Context) (b adapters.Session, _ conversation.Setup, err error) {
			b, err = a.Start(ctx, so)
			return
		},
		Warm: &conversation.Warm{}, Context: func() context.Context { return runCtx }} // no Log: the summary reports a failed start
	defer r.closeAgent()
	r.agent.Launch(true)
	var prompt []adapters.Content
	var sess adapters.Session
	var perr error
	r.watched(func() {
		if prompt, perr = r.promptContent(); perr == nil {
			sess, _, err = r.agent.Await(runCtx)
		}
	})
	switch {
	case perr != nil:
		return r.summary(classifyStartError(perr), perr)
	case r.stopCause() != nil:
		return r.finish(r.stopCause())
	case err != nil:
		return r.startFailed(adapters.NotStarted(a.Name(), err))
	}
	r.out.progress("started %s", a.Name())
	obs, audit := conversation.Observers(caps, r.o.Hooks, r.o.AuditDir, transcripts.Meta{Agent: a.Name(), Cwd: so.Cwd, Model: so.Model}, func(err error) {
		r.warn("the run's transcript was not written: %v", err)
	})
	defer audit.Close()
	defer obs.Close()
	spec := conversation.TurnSpec{Agent: a.Name(), Session: sess, Prompt: prompt, Lead: func() string { return prefix }, Hooks: obs, Audit: audit, Gate: r.gate, Emit: r.handle,
		Narrate: r.out.narration, Workspace: so.Cwd, Model: model, Digest: &r.digest, Watch: watch, WatchBound: r.o.ProviderTimeout}
	if err := r.turn(runCtx, spec); err != nil && r.stopCause() == nil {
		if word, _, _ := strings.Cut(err.Error(), " "); strings.TrimSuffix(word, ":") != a.Name() { // named once
			err = fmt.Errorf("prompt %s: %w", a.Name(), err)
		}
		return r.startFailed(err)
	}
	r.conform(runCtx, spec)
	r.saveTranscript(r.promptText)
	return r.finish(r.stopCause())
}

// turn runs one turn of the run through the conversation's pipeline,
// watched for interrupts, the timeout and the budgets; the error is one
// the agent never took the prompt with.
func (r *run) turn(ctx context.Context, spec conversation.TurnSpec) error {
	r.out.turn("turn_start", spec.Agent, "", nil)
	var oc conversation.Outcome
	var err error
	r.watched(func() { oc, err = conversation.RunTurn(ctx, spec) })
	r.budget.endTurn()
	r.out.turn("turn_end", spec.Agent, oc.Stop, r.digest.Usage)
	for _, w := range oc.Warnings {
		r.warn("hook: %s", w)
	}
	r.failure = oc.Failure
	switch oc.Ending {
	case conversation.Stuck:
		r.out.progress("agent did not stop within %s; closing it", r.o.Grace)
		return nil
	case conversation.Lost:
		return err
	}
	r.stop = oc.Stop
	r.out.event(adapters.Event{Type: adapters.EventDone, StopReason: oc.Stop})
	return nil
}

// startFailed reports an error before the turn began, on one line, with
// the doctor command that explains a missing or logged-out agent.
func (r *run) startFailed(err error) Summary {
	r.startErr = err
	code := classifyStartError(err)
	msg := oneLine(err.Error())
	if code == conversation.ExitNotInstalled || code == conversation.ExitNotAuthenticated {
		msg += fmt.Sprintf(" (run 'hub doctor --agent %s')", r.o.Agent)
	}
	return r.summary(code, errors.New(msg))
}

// warn records a warning for the summary and shows it in text format.
func (r *run) warn(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	r.warnings = append(r.warnings, w)
	r.out.warning(w)
}

// closeAgent closes the agent session and abandons a start in flight,
// which closes what it brings back; it waits for that up to the grace.
func (r *run) closeAgent() {
	if b := r.agent.Close(); b != nil {
		_ = b.Close()
	}
	ended := make(chan struct{})
	go func() { r.starts.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-r.o.After(r.o.Grace):
	}
}

// watched runs f while an interrupt, the timeout or a budget cancels the
// run, which then has the grace period to end, keeping what the agent says
// while stopping; a second interrupt closes the agent session at once.
func (r *run) watched(f func()) {
	ended, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-ended:
				return
			case <-r.done:
				r.done = nil
				r.begin(errInterrupted)
			case <-r.o.Signals:
				if r.stopCause() == nil {
					r.begin(errInterrupted)
				} else if b := r.agent.Current(); b != nil {
					_ = b.Close()
					return
				}
			case <-r.timeout:
				r.timeout = nil
				r.begin(errTimedOut)
			case <-r.budget.hit:
				r.begin(errOverBudget)
			}
		}
	}()
	f()
	close(ended)
	<-watched // a stop it began as f ended is said before what follows
}

// begin stops the run for why, unless it is stopping already; only the
// watcher (watched) calls it.
func (r *run) begin(why error) {
	if r.stopCause() == nil {
		r.out.progress("%v: cancelling the agent", why)
		r.cancel(why)
	}
}

func (r *run) stopCause() error { return context.Cause(r.ctx) }

// handle shows one event of the turn, after the digest took it in.
func (r *run) handle(ev adapters.Event) {
	r.budget.round(ev)
	switch {
	case ev.Type == adapters.EventUsage:
		r.budget.stopOver()
	case ev.Type == adapters.EventError && ev.Error != nil && ev.Error.Fatal:
		if r.shown != nil { // only the last reaches the summary: show the one it replaces now
			r.out.fatalLine(r.shown)
		}
		r.shown = ev.Error
	}
	r.out.event(ev)
}

// finish maps what happened to an exit code.
func (r *run) finish(c error) Summary {
	code, err, f := conversation.ExitOK, error(nil), r.failure
	if c == nil && r.budget.kind != "" {
		c = errOverBudget // passed as the turn ended, before the watcher cancelled it
	}
	switch {
	case c == errInterrupted:
		code, err = conversation.ExitInterrupted, fmt.Errorf("interrupted%s", r.lastError())
	case c == errOverBudget:
		r.stop, r.budgetHit = map[bool]adapters.StopReason{true: adapters.StopMaxTurnRequests, false: adapters.StopMaxTokens}[r.budget.kind == "turns"], r.budget.kind
		code, err = conversation.ExitBudget, errors.New(r.budget.why)
	case c == errTimedOut:
		code, err = conversation.ExitTimeout, fmt.Errorf("timed out after %s%s", r.o.Timeout, r.lastError())
	case conversation.Classify(f) == conversation.ClassAuth:
		code, err = conversation.ExitNotAuthenticated, fmt.Errorf("not authenticated: %s (run 'hub doctor --agent %s')", trimDetail(f.Message, f.Detail), r.o.Agent)
	case f != nil && !f.Fatal:
		// The agent refused the prompt with a "non-fatal" error and did
		// nothing else: not a completed run.
		code, err = conversation.ExitAgentError, fmt.Errorf("the agent answered only with an error: %s", oneLine(f.Message))
	case f != nil:
		code, err = conversation.ExitAgentError, errors.New(trimDetail(f.Message, f.Detail))
	case r.stop == adapters.StopCancelled:
		code, err = conversation.ExitAgentError, fmt.Errorf("the agent cancelled the turn")
	case r.stop == adapters.StopMaxTurnRequests && r.o.MaxTurns > 0:
		r.budgetHit, code, err = "turns", conversation.ExitBudget, fmt.Errorf("stopped at --max-turns %d before the agent finished", r.o.MaxTurns)
	case r.stop == adapters.StopMaxTurnRequests: // the agent's own limit (a native profile's max_turn_requests)
		r.budgetHit, code, err = "turns", conversation.ExitBudget, errors.New("the agent stopped at its limit of model requests (max_turn_requests) before finishing")
	case r.stop == adapters.StopMaxTokens:
		code, err = conversation.ExitMaxTokens, errors.New("the model stopped at its output token limit (max_tokens) before finishing")
	case r.stop == adapters.StopRefusal:
		code, err = conversation.ExitRefusal, errors.New("the model refused to answer (stop reason refusal)")
	case r.schemaErr != nil:
		code, err = conversation.ExitSchema, fmt.Errorf("the answer does not match --output-schema, also after a repair turn: %s", firstError(r.schemaErr))
	case len(r.digest.Refused) > 0:
		code, err = conversation.ExitDenied, fmt.Errorf("%d permission request(s) denied by %s", len(r.digest.Refused), r.deniedBy())
	}
	return r.summary(code, err)
}

// deniedBy names what refused: --approve, or the first refusal's reason
// when something else did (a hard deny, a rule, a hook).
func (r *run) deniedBy() string {
	if why := r.digest.Refused[0].Reason; !strings.HasPrefix(why, "--approve") {
		return "hub (" + why + ")"
	}
	return "--approve " + string(r.o.Approve)
}

// lastError names the agent's last error, if any, for an interrupted or
// timed-out run.
func (r *run) lastError() string {
	switch f, errs := r.digest.Fatal, r.digest.Errors; {
	case f != nil && f.Fatal:
		return " (last error: " + trimDetail(f.Message, f.Detail) + ")"
	case len(errs) > 0:
		return " (last warning: " + oneLine(errs[len(errs)-1]) + ")"
	}
	return ""
}

func trimDetail(msg, detail string) string {
	msg = oneLine(msg)
	if d := oneLine(detail); d != "" && strings.HasSuffix(msg, d) && len(msg) > len(d) {
		msg = strings.TrimRight(strings.TrimSuffix(msg, d), ": |")
	}
	return msg
}

// oneLine joins a multi-line message with "; ".
func oneLine(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "; ")
}

func (r *run) summary(code int, err error) Summary {
	d := &r.digest
	s := Summary{
		StopReason: r.stop, Budget: r.budgetHit, AgentSessionID: d.AgentSessionID, Usage: d.Usage, Model: cmp.Or(d.Model, r.o.Model),
		FilesChanged: d.FilesChanged, Denied: append([]Denial{}, d.Refused...), ExitCode: code,
		Answer: d.Text(), Warnings: r.warnings, Resumable: r.resumable,
	}
	if err != nil {
		s.Error = err.Error()
	}
	switch {
	case code == conversation.ExitOK || code == conversation.ExitDenied:
		s.Answer = d.Answer()
		if r.output != nil { // --output-schema: the answer is the valid JSON
			s.Output, s.Answer = r.output, string(r.output)
		}
	case r.failure != nil:
		s.Detail = r.failure.Detail
	case d.Fatal != nil:
		s.Detail = d.Fatal.Detail
	}
	return s
}
