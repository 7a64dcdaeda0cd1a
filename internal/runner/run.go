package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/permission"
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

	// answer is all the assistant text; final is the text since the last
	// tool call, the "final answer" a successful run prints.
	answer    strings.Builder
	final     strings.Builder
	lastFinal string // the last non-empty final segment
	tools     int    // tool calls seen
	lastMsgID string
	errs      []string // messages of non-fatal errors
	budget    *budget  // --max-tokens, --max-cost and counted --max-turns
	budgetHit string   // the limit that stopped the run (Summary.Budget)
	warnings  []string
	sessionID string
	model     string // what the agent said it uses
	usage     *adapters.Usage
	denied    []Denial
	fatal     *adapters.ErrorInfo // the error events show
	failure   *adapters.ErrorInfo // why the turn failed, if it did
	stop      adapters.StopReason
	resumable bool
	cwd       string              // the session's, for the rules' paths
	perms     *permission.Service // rules, --allow-tool, the skills' allowed-tools
	// from is the transcript of the session --resume names, if hub has it;
	// notes and promptText make this run's turn of the transcript.
	startErr   bool // the agent failed to start
	from       *transcript
	notes      turnNotes
	promptText string
	audit      *transcripts.Audit
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
		err := fmt.Errorf("%w: --max-cost: %s reports no cost and its model %q has no known price (internal/runner/prices.json)", ErrUsage, a.Name(), model)
		return r.summary(classifyStartError(err), err)
	}
	if !caps.Permissions && r.o.Approve != ApproveAll && r.o.Ask == nil {
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
	ended := make(chan struct{})
	go r.watch(sess, cancelRun, st, ended)
	r.audit = r.openAudit(a.Name(), caps, so)
	r.audit.Prompt(a.Name(), prompt)
	obs := r.observe(a.Name(), caps, so)
	defer obs.Close()
	var reason adapters.StopReason
	r.out.turn(turnEvent{Type: "turn_start", Agent: a.Name()})
	if gate := obs.Prompt(runCtx, a.Name(), prompt); gate.Decision == hooks.Deny {
		reason, err = adapters.StopEndTurn, hooks.Blocked(gate)
	} else {
		reason, err = sess.Prompt(runCtx, prompt, obs.Wrap(func(ev adapters.Event) {
			r.audit.Event(ev)
			r.handle(ev)
		}))
	}
	close(ended)
	r.out.turn(turnEvent{Type: "turn_end", Agent: a.Name(), StopReason: reason, Usage: r.usage})
	r.audit.EndTurn(reason)
	r.audit.Close()
	obs.EndTurn(reason)
	for _, w := range obs.Flush(runCtx) {
		r.warn("hook: %s", w)
	}
	var failed *adapters.TurnError
	switch {
	case errors.As(err, &failed):
		r.failure = &failed.Info
	case errors.Is(err, adapters.ErrCancelTimeout):
		r.out.progress("agent did not stop within %s; closing it", r.o.Grace)
	case err != nil && r.stopCause() == causeNone:
		return r.startFailed(fmt.Errorf("prompt %s: %w", a.Name(), err))
	}
	if err == nil || failed != nil {
		r.stop = reason
		r.out.event(adapters.Event{Type: adapters.EventDone, StopReason: reason}, nil)
	}
	if id := sess.ID(); id != "" && r.sessionID == "" {
		r.sessionID = id
	}
	r.conform(runCtx, sess, cancelRun, st, a.Name())
	r.saveTranscript(r.promptText)
	return r.finish(r.stopCause())
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
	r.startErr = true
	code := classifyStartError(err)
	msg := oneLine(err.Error())
	if code == ExitAgentError && looksLikeAuth(msg) {
		code = ExitNotAuthenticated
	}
	if code == ExitNotInstalled || code == ExitNotAuthenticated {
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

// permission answers a permission request, and shows it: through Ask when
// set, else in hub's one evaluation order (the deny list, the configured
// rules, --allow-tool and the skills' allowed-tools), and by --approve
// where none of them speaks.
func (r *run) permission(ctx context.Context, p *adapters.PermissionRequest) adapters.PermissionDecision {
	var d adapters.PermissionDecision
	var reason string
	if r.o.Ask != nil {
		d, reason = r.o.Ask(ctx, p), "the user rejected it"
	} else {
		d, reason = Decide(r.perms, r.o.Approve, r.cwd, p)
	}
	if !d.Allowed() {
		r.denied = append(r.denied, Denial{ToolID: p.Tool.ID, Title: titleOf(p.Tool), Kind: p.Tool.Kind, Reason: reason})
	}
	r.out.decided(adapters.Event{Type: adapters.EventPermission, Permission: p}, d, reason)
	return d
}

func (r *run) handle(ev adapters.Event) {
	r.notes.note(ev)
	r.budget.round(ev)
	switch ev.Type {
	case adapters.EventText:
		newMsg := ev.MessageID != "" && ev.MessageID != r.lastMsgID
		if (newMsg || r.final.Len() == 0) && r.answer.Len() > 0 && !strings.HasSuffix(r.answer.String(), "\n") {
			// A new message, or text after a tool call, starts a paragraph.
			r.answer.WriteString("\n\n")
		}
		if newMsg && r.final.Len() > 0 && !strings.HasSuffix(r.final.String(), "\n") {
			r.final.WriteString("\n\n")
		}
		if ev.MessageID != "" {
			r.lastMsgID = ev.MessageID
		}
		r.answer.WriteString(ev.Text)
		r.final.WriteString(ev.Text)
	case adapters.EventToolCall:
		// Text before a tool call is narration, not the final answer.
		r.tools++
		if seg := strings.TrimSpace(r.final.String()); seg != "" {
			r.lastFinal = seg
			r.out.narration(seg)
		}
		r.final.Reset()
	case adapters.EventSessionInfo:
		if ev.Session != nil && ev.Session.AgentSessionID != "" {
			r.sessionID = ev.Session.AgentSessionID
		}
		if ev.Session != nil && ev.Session.Model != "" {
			r.model = ev.Session.Model
		}
	case adapters.EventUsage:
		r.usage = mergeUsage(r.usage, ev.Usage)
		r.budget.check(r.usage)
	case adapters.EventError:
		if ev.Error != nil {
			if !ev.Error.Fatal {
				r.errs = append(r.errs, oneLine(ev.Error.Message))
			}
			if r.fatal != nil && r.fatal.Fatal && ev.Error.Fatal {
				// Only the last fatal error reaches the summary; show
				// the one it replaces now.
				r.out.fatalLine(r.fatal)
			}
			if ev.Error.Fatal || r.fatal == nil {
				e := *ev.Error
				r.fatal = &e
			}
		}
	}
	r.out.event(ev, nil)
}

func titleOf(t adapters.ToolCall) string {
	if t.Title != "" {
		return t.Title
	}
	return t.Name
}

// mergeUsage folds one usage event into the turn's: the counts of a
// per-request event add up, other agents report the turn's (or session's)
// totals so far, of which the latest non-zero value of each counter wins.
func mergeUsage(acc, u *adapters.Usage) *adapters.Usage {
	if u == nil {
		return acc
	}
	if acc == nil {
		c := *u
		return &c
	}
	if u.PerRequest {
		return addUsage(acc, u)
	}
	for _, p := range [][2]*int64{
		{&acc.InputTokens, &u.InputTokens}, {&acc.OutputTokens, &u.OutputTokens},
		{&acc.CacheReadTokens, &u.CacheReadTokens}, {&acc.CacheWriteTokens, &u.CacheWriteTokens},
		{&acc.ThoughtTokens, &u.ThoughtTokens}, {&acc.ContextUsed, &u.ContextUsed}, {&acc.ContextSize, &u.ContextSize},
	} {
		if *p[1] != 0 {
			*p[0] = *p[1]
		}
	}
	if u.CostUSD != nil {
		acc.CostUSD = u.CostUSD
	}
	return acc
}

// addUsage sums two usages' counts and costs (one per request, or one per
// attempt of a run); the context figures are b's, the later.
func addUsage(a, b *adapters.Usage) *adapters.Usage {
	switch {
	case b == nil:
		return a
	case a == nil:
		c := *b
		return &c
	}
	s := *a
	s.InputTokens += b.InputTokens
	s.OutputTokens += b.OutputTokens
	s.CacheReadTokens += b.CacheReadTokens
	s.CacheWriteTokens += b.CacheWriteTokens
	s.ThoughtTokens += b.ThoughtTokens
	s.ContextUsed = cmp.Or(b.ContextUsed, s.ContextUsed)
	s.ContextSize = cmp.Or(b.ContextSize, s.ContextSize)
	if b.CostUSD != nil {
		c := *b.CostUSD
		if a.CostUSD != nil {
			c += *a.CostUSD
		}
		s.CostUSD = &c
	}
	return &s
}

// finish maps what happened to an exit code.
func (r *run) finish(c cause) Summary {
	var err error
	code := ExitOK
	f := r.failure
	switch {
	case c == causeInterrupt:
		code, err = ExitInterrupted, fmt.Errorf("interrupted%s", r.lastError())
	case c == causeBudget:
		r.stop, r.budgetHit = r.budget.stop(), r.budget.kind
		code, err = ExitBudget, errors.New(r.budget.why)
	case c == causeTimeout:
		code, err = ExitTimeout, fmt.Errorf("timed out after %s%s", r.o.Timeout, r.lastError())
	case f != nil && (f.Code == adapters.CodeAuth || looksLikeAuth(f.Message)):
		code, err = ExitNotAuthenticated, fmt.Errorf("not authenticated: %s (run 'hub doctor --agent %s')", trimDetail(f.Message, f.Detail), r.o.Agent)
	case f != nil && !f.Fatal:
		// The agent refused the prompt with a "non-fatal" error and did
		// nothing else: not a completed run.
		code, err = ExitAgentError, fmt.Errorf("the agent answered only with an error: %s", oneLine(f.Message))
	case f != nil:
		code, err = ExitAgentError, errors.New(trimDetail(f.Message, f.Detail))
	case r.stop == adapters.StopCancelled:
		code, err = ExitAgentError, fmt.Errorf("the agent cancelled the turn")
	case r.stop == adapters.StopMaxTurnRequests && r.o.MaxTurns > 0:
		r.budgetHit = "turns"
		code, err = ExitBudget, fmt.Errorf("stopped at --max-turns %d before the agent finished", r.o.MaxTurns)
	case r.schemaErr != nil:
		code, err = ExitSchema, fmt.Errorf("the answer does not match --output-schema, also after a repair turn: %s", firstError(r.schemaErr))
	case len(r.denied) > 0:
		code, err = ExitDenied, fmt.Errorf("%d permission request(s) denied by --approve %s", len(r.denied), r.o.Approve)
	}
	return r.summary(code, err)
}

// lastError names the agent's last error, if any, for an interrupted or
// timed-out run.
func (r *run) lastError() string {
	switch {
	case r.fatal != nil && r.fatal.Fatal:
		return " (last error: " + r.fatalMsg() + ")"
	case len(r.errs) > 0:
		return " (last warning: " + r.errs[len(r.errs)-1] + ")"
	}
	return ""
}

// fatalMsg is the fatal error's message on one line, without the stderr
// tail when it only repeats Detail (which the summary shows line by line).
func (r *run) fatalMsg() string {
	if r.fatal == nil {
		return "the agent reported an auth error"
	}
	return trimDetail(r.fatal.Message, r.fatal.Detail)
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

// authPhrases are what agents say when they have no usable credentials;
// adapters that do not tag such errors "auth" still exit 4 through them.
var authPhrases = regexp.MustCompile(`(?i)not logged in|please run /login|\blog ?in required|not authenticated|unauthenticated|authentication (?:failed|error|required)|authentication_error|invalid[ _-](?:x-)?api[ _-]?key|incorrect api key|api key (?:is )?(?:missing|not (?:set|found|configured|valid))|no api key|missing api key|\b401\b|unauthorized`)

func looksLikeAuth(msg string) bool { return authPhrases.MatchString(msg) }

func (r *run) summary(code int, err error) Summary {
	s := Summary{
		StopReason: r.stop, Budget: r.budgetHit, AgentSessionID: r.sessionID, Usage: r.usage, Model: cmp.Or(r.model, r.o.Model),
		DurationMs: r.o.Now().Sub(r.start).Milliseconds(), Denied: r.denied, ExitCode: code,
		Answer: r.answer.String(), Warnings: r.warnings, Resumable: r.resumable,
	}
	if s.Denied == nil {
		s.Denied = []Denial{}
	}
	if code == ExitOK || code == ExitDenied {
		s.Answer = r.finalAnswer()
		if r.output != nil { // --output-schema: the answer is the valid JSON
			s.Output, s.Answer = r.output, string(r.output)
		}
	}
	if err != nil {
		s.Error = err.Error()
	}
	switch {
	case code == ExitOK || code == ExitDenied:
	case r.failure != nil:
		s.Detail = r.failure.Detail
	case r.fatal != nil:
		s.Detail = r.fatal.Detail
	}
	return s
}

// finalAnswer is what a completed run prints: the text after the last
// tool call, else the last text before it.
func (r *run) finalAnswer() string {
	return cmp.Or(strings.TrimSpace(r.final.String()), r.lastFinal)
}

func (o *Options) stopAll() {
	if o.StopAll != nil {
		o.StopAll()
		return
	}
	proc.StopAll(2 * time.Second)
}
