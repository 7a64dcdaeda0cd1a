package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc"
	transcripts "github.com/hubdev/hub/internal/transcript"
)

// cause is why the run stopped early.
type cause int

const (
	causeNone cause = iota
	causeInterrupt
	causeTimeout
	causeBudget // --max-tokens, --max-cost or counted --max-turns was reached
)

type run struct {
	o     Options
	start time.Time
	out   *output

	// digest is the turn's: its text, final answer, tool calls, usage
	// (summed over every request), model, agent session id and errors.
	digest    conversation.Digest
	shown     *adapters.ErrorInfo // the last fatal error shown
	budget    *budget             // --max-tokens, --max-cost and counted --max-turns
	budgetHit string              // the limit that stopped the run (Summary.Budget)
	warnings  []string
	denied    []Denial
	failure   *adapters.ErrorInfo // why the turn failed, if it did
	stop      adapters.StopReason
	resumable bool
	cwd       string // the session's, for the transcript
	// from is the transcript of the session --resume names, if hub has it;
	// the digest and promptText make this run's turn of the transcript.
	startErr     error // the agent failed to start, or to take the prompt
	fallbackNext bool  // a next agent takes over if this one cannot work
	from         *runRecord
	promptText   string
	audit        *transcripts.Audit // nil when the agent keeps its own
	// output is the answer --output-schema validated; schemaErr why the
	// repaired answer still did not match.
	output    json.RawMessage
	schemaErr error

	mu    sync.Mutex
	cause cause // why the run stopped early
}

// stopper delivers interrupts and the timeout; each fires at most once.
type stopper struct {
	done    <-chan struct{}
	sigs    <-chan struct{}
	timeout <-chan time.Time
}

func (r *run) execute(ctx context.Context) Summary {
	a, err := r.o.Registry.Get(r.o.Agent)
	if err != nil {
		return r.summary(classifyStartError(err), err)
	}
	caps := a.Capabilities()
	r.resumable = caps.Resume
	if r.o.ResumeID != "" {
		r.from = loadTranscript(r.o.TranscriptDir, r.o.ResumeID)
	}
	so, prefix, cleanup, err := r.sessionOptions(a.Name(), caps)
	defer cleanup()
	if err != nil {
		return r.summary(classifyStartError(err), err)
	}
	r.handover(a.Name(), caps, &so, &prefix)
	r.cwd = so.Cwd
	model := cmp.Or(so.Model, caps.DefaultModel)
	if r.budget = newBudget(r.o, model, !caps.TurnBudget); r.o.MaxCost > 0 && !caps.ReportsCost && r.budget.price == nil {
		err := fmt.Errorf("%w: --max-cost: %s reports no cost and its model %q has no known price (conversation/prices.json)", ErrUsage, a.Name(), model)
		return r.summary(classifyStartError(err), err)
	}
	if !caps.Permissions && r.o.Approve != conversation.ApproveAll && r.o.Ask == nil {
		r.warn("%s cannot ask for permission: its tools run without asking, whatever --approve %s says", a.Name(), r.o.Approve)
	}
	st := r.stopper(ctx)
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	defer r.o.stopAll()

	// The agent starts while the prompt is read and the images loaded.
	started := make(chan startResult, 1)
	go func() {
		s, c, err := r.startSession(runCtx, cancelRun, a, so, st)
		started <- startResult{s, c, err}
	}()
	prompt, err := r.promptContent(prefix)
	if err != nil {
		cancelRun()
		if x := <-started; x.s != nil {
			_ = x.s.Close()
		}
		return r.summary(classifyStartError(err), err)
	}
	x := <-started
	sess, c, err := x.s, x.c, x.err
	if c != causeNone {
		return r.finish(c)
	}
	if err != nil {
		return r.startFailed(fmt.Errorf("start %s: %w", a.Name(), err))
	}
	defer func() { _ = sess.Close() }()
	r.out.progress("started %s", a.Name())
	r.audit = r.openAudit(a.Name(), caps, so)
	defer r.audit.Close()
	obs := r.observe(a.Name(), caps, so)
	defer obs.Close()
	spec := conversation.TurnSpec{Agent: a.Name(), Session: sess, Prompt: prompt, Hooks: obs, Audit: r.audit, Emit: r.handle,
		Narrate: r.out.narration, Workspace: so.Cwd, Model: model, Digest: &r.digest, Watch: r.fallbackNext, WatchBound: r.o.ProviderTimeout}
	if err := r.turn(runCtx, spec, cancelRun, st); err != nil && r.stopCause() == causeNone {
		return r.startFailed(fmt.Errorf("prompt %s: %w", a.Name(), err))
	}
	r.conform(runCtx, spec, cancelRun, st)
	r.saveTranscript(r.promptText)
	return r.finish(r.stopCause())
}

// turn runs one turn of the run through the conversation's pipeline,
// watched for interrupts, the timeout and the budgets; the error is one
// the agent never took the prompt with.
func (r *run) turn(ctx context.Context, spec conversation.TurnSpec, cancelRun context.CancelFunc, st *stopper) error {
	ended, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		r.watch(spec.Session, cancelRun, st, ended)
	}()
	r.out.turn(turnEvent{Type: "turn_start", Agent: spec.Agent})
	oc, err := conversation.RunTurn(ctx, spec)
	close(ended)
	<-watched // a stop it began as the turn ended is said before the turn's end
	r.out.turn(turnEvent{Type: "turn_end", Agent: spec.Agent, StopReason: oc.Stop, Usage: r.digest.Usage})
	for _, w := range oc.Warnings {
		r.warn("hook: %s", w)
	}
	r.failure = oc.Failure
	var failed *adapters.TurnError
	switch {
	case errors.As(err, &failed):
	case errors.Is(err, adapters.ErrCancelTimeout):
		r.out.progress("agent did not stop within %s; closing it", r.o.Grace)
		return nil
	case err != nil:
		return err
	}
	r.stop = oc.Stop
	r.out.event(adapters.Event{Type: adapters.EventDone, StopReason: oc.Stop})
	return nil
}

// openAudit starts the run's audit transcript when transcripts are on. An
// agent that keeps its own (the native loop) is left to it: both would be
// named after its session id.
func (r *run) openAudit(agent string, caps adapters.Capabilities, so adapters.SessionOptions) *transcripts.Audit {
	if r.o.AuditDir == "" || caps.Transcript {
		return nil
	}
	return transcripts.NewAudit(r.o.AuditDir, transcripts.Meta{Agent: agent, Cwd: so.Cwd, Model: so.Model}, nil, func(err error) {
		r.warn("the run's transcript was not written: %v", err)
	})
}

// observe runs the configured hooks on the agent's Event stream, unless
// the agent runs them itself (the native loop); nil when none are
// configured.
func (r *run) observe(agent string, caps adapters.Capabilities, so adapters.SessionOptions) *hooks.Observer {
	if caps.Hooks {
		return nil
	}
	return r.o.Hooks.Observe(hooks.Input{Cwd: so.Cwd, Agent: agent})
}

type startResult struct {
	s   adapters.Session
	c   cause
	err error
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
	r.out.textLine(r.out.color("33", "warning: "+w))
}

func (r *run) stopper(ctx context.Context) *stopper {
	st := &stopper{done: ctx.Done()}
	if r.o.Timeout > 0 {
		st.timeout = r.o.After(r.o.Timeout)
	}
	if r.o.Signals != nil {
		sigs := make(chan struct{}, 4)
		go func() {
			for range r.o.Signals {
				select {
				case sigs <- struct{}{}:
				default:
				}
			}
		}()
		st.sigs = sigs
	}
	return st
}

// startSession starts the agent; an interrupt or timeout while starting
// cancels the start (which stops any process it spawned).
func (r *run) startSession(ctx context.Context, cancel func(), a adapters.Adapter, so adapters.SessionOptions, st *stopper) (adapters.Session, cause, error) {
	type res struct {
		s   adapters.Session
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := a.Start(ctx, so)
		ch <- res{s, err}
	}()
	var c cause
	select {
	case x := <-ch:
		return x.s, causeNone, x.err
	case <-st.done:
		c = causeInterrupt
	case <-st.sigs:
		c = causeInterrupt
	case <-st.timeout:
		c = causeTimeout
	}
	cancel()
	select {
	case x := <-ch:
		if x.s != nil {
			_ = x.s.Close()
		}
	case <-r.o.After(r.o.Grace):
	}
	return nil, c, nil
}

// watch turns an interrupt or the timeout into a cancel of the turn, which
// then has the grace period to end, so what the agent says while stopping
// is kept; a second interrupt closes the session at once.
func (r *run) watch(sess adapters.Session, cancelTurn context.CancelFunc, st *stopper, ended <-chan struct{}) {
	for {
		select {
		case <-ended:
			return
		case <-st.done:
			st.done = nil
			r.begin(causeInterrupt, cancelTurn)
		case <-st.sigs:
			if r.stopCause() != causeNone {
				_ = sess.Close()
				return
			}
			r.begin(causeInterrupt, cancelTurn)
		case <-st.timeout:
			st.timeout = nil
			r.begin(causeTimeout, cancelTurn)
		case <-r.budget.hit:
			r.begin(causeBudget, cancelTurn)
		}
	}
}

func (r *run) begin(why cause, cancelTurn context.CancelFunc) {
	r.mu.Lock()
	first := r.cause == causeNone
	if first {
		r.cause = why
	}
	r.mu.Unlock()
	if first {
		r.out.progress("%s: cancelling the agent", map[cause]string{causeInterrupt: "interrupted", causeTimeout: "timeout", causeBudget: "budget"}[why])
		cancelTurn()
	}
}

func (r *run) stopCause() cause {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cause
}

// decided records a decision of the run's gate, as the agent's own (the
// native loop's) are recorded from its stream.
func (r *run) decided(ev adapters.Event) {
	r.audit.Event(ev)
	r.handle(ev)
}

// handle shows one event of the turn, after the digest took it in.
func (r *run) handle(ev adapters.Event) {
	r.budget.round(ev)
	switch {
	case ev.Type == adapters.EventDecision: // whatever took it: a refusal counts in denied[]
		if d := ev.Decision; d != nil {
			if !d.Allowed {
				r.denied = append(r.denied, Denial{ToolID: d.ToolID, Title: d.Title, Kind: d.Kind, Reason: d.Reason})
			}
			r.out.decided(ev)
		}
		return
	case ev.Type == adapters.EventUsage:
		r.budget.check(r.digest.Usage, r.digest.Model)
	case ev.Type == adapters.EventError && ev.Error != nil && ev.Error.Fatal:
		if r.shown != nil {
			// Only the last fatal error reaches the summary; show the one
			// it replaces now.
			r.out.fatalLine(r.shown)
		}
		r.shown = ev.Error
	}
	r.out.event(ev)
}

func titleOf(t adapters.ToolCall) string {
	if t.Title != "" {
		return t.Title
	}
	return t.Name
}

// finish maps what happened to an exit code.
func (r *run) finish(c cause) Summary {
	var err error
	code := conversation.ExitOK
	f := r.failure
	if c == causeNone && r.budget != nil && r.budget.kind != "" {
		c = causeBudget // passed as the turn ended, before the watcher cancelled it
	}
	switch {
	case c == causeInterrupt:
		code, err = conversation.ExitInterrupted, fmt.Errorf("interrupted%s", r.lastError())
	case c == causeBudget:
		r.stop, r.budgetHit = r.budget.stop(), r.budget.kind
		code, err = conversation.ExitBudget, errors.New(r.budget.why)
	case c == causeTimeout:
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
		r.budgetHit = "turns"
		code, err = conversation.ExitBudget, fmt.Errorf("stopped at --max-turns %d before the agent finished", r.o.MaxTurns)
	case r.stop == adapters.StopMaxTurnRequests: // the agent's own limit (a native profile's max_turn_requests)
		r.budgetHit = "turns"
		code, err = conversation.ExitBudget, errors.New("the agent stopped at its limit of model requests (max_turn_requests) before finishing")
	case r.stop == adapters.StopMaxTokens:
		code, err = conversation.ExitMaxTokens, errors.New("the model stopped at its output token limit (max_tokens) before finishing")
	case r.stop == adapters.StopRefusal:
		code, err = conversation.ExitRefusal, errors.New("the model refused to answer (stop reason refusal)")
	case r.schemaErr != nil:
		code, err = conversation.ExitSchema, fmt.Errorf("the answer does not match --output-schema, also after a repair turn: %s", firstError(r.schemaErr))
	case len(r.denied) > 0:
		code, err = conversation.ExitDenied, fmt.Errorf("%d permission request(s) denied by %s", len(r.denied), r.deniedBy())
	}
	return r.summary(code, err)
}

// deniedBy names what refused: --approve, or the first refusal's reason
// when something else did (a hard deny, a rule, a hook).
func (r *run) deniedBy() string {
	if why := r.denied[0].Reason; !strings.HasPrefix(why, "--approve") {
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
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

func (r *run) summary(code int, err error) Summary {
	d := &r.digest
	s := Summary{
		StopReason: r.stop, Budget: r.budgetHit, AgentSessionID: d.AgentSessionID, Usage: d.Usage, Model: cmp.Or(d.Model, r.o.Model),
		DurationMs: r.o.Now().Sub(r.start).Milliseconds(), Denied: r.denied, ExitCode: code,
		Answer: d.Text(), Warnings: r.warnings, Resumable: r.resumable,
	}
	if s.Denied == nil {
		s.Denied = []Denial{}
	}
	if code == conversation.ExitOK || code == conversation.ExitDenied {
		s.Answer = d.Answer()
		if r.output != nil { // --output-schema: the answer is the valid JSON
			s.Output, s.Answer = r.output, string(r.output)
		}
	}
	if err != nil {
		s.Error = err.Error()
	}
	switch {
	case code == conversation.ExitOK || code == conversation.ExitDenied:
	case r.failure != nil:
		s.Detail = r.failure.Detail
	case d.Fatal != nil:
		s.Detail = d.Fatal.Detail
	}
	return s
}

func (o *Options) stopAll() {
	if o.StopAll != nil {
		o.StopAll()
		return
	}
	proc.StopAll(2 * time.Second)
}
