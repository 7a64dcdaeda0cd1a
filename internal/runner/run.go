package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

// cause is why the run stopped early.
type cause int

const (
	causeNone cause = iota
	causeInterrupt
	causeTimeout
)

type run struct {
	o     Options
	start time.Time
	out   *output

	answer    strings.Builder
	lastMsgID string
	sessionID string
	usage     *adapters.Usage
	denied    []Denial
	fatal     *adapters.ErrorInfo
	authErr   bool
	stop      adapters.StopReason
	gotDone   bool
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
	prompt, so, cleanup, err := r.prepare(a.Name(), a.Capabilities())
	defer cleanup()
	if err != nil {
		return r.summary(classifyStartError(err), err)
	}
	st := r.stopper(ctx)
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	defer r.o.stopAll()

	sess, c, err := r.startSession(runCtx, cancelRun, a, so, st)
	if c != causeNone {
		return r.finish(c, nil)
	}
	if err != nil {
		return r.summary(classifyStartError(err), fmt.Errorf("start %s: %w", a.Name(), err))
	}
	defer func() { _ = sess.Close() }()
	r.out.progress("started %s", a.Name())
	events, err := sess.Prompt(runCtx, prompt)
	if err != nil {
		return r.summary(classifyStartError(err), fmt.Errorf("prompt %s: %w", a.Name(), err))
	}
	c = r.consume(sess, events, st)
	if id := sess.ID(); id != "" && r.sessionID == "" {
		r.sessionID = id
	}
	return r.finish(c, nil)
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

// consume handles events until the channel closes. On interrupt or timeout
// it cancels the turn and keeps reading for the grace period, so what the
// agent says while stopping is kept; a second interrupt or the end of the
// grace period closes the session.
func (r *run) consume(sess adapters.Session, events <-chan adapters.Event, st *stopper) cause {
	c := causeNone
	var grace <-chan time.Time
	begin := func(why cause) {
		if c != causeNone {
			return
		}
		c = why
		r.out.progress("%s: cancelling the agent", map[cause]string{causeInterrupt: "interrupted", causeTimeout: "timeout"}[why])
		sess.Cancel()
		grace = r.o.After(r.o.Grace)
	}
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return c
			}
			r.handle(ev)
		case <-st.done:
			st.done = nil
			begin(causeInterrupt)
		case <-st.sigs:
			if c != causeNone {
				r.abandon(sess, events)
				return c
			}
			begin(causeInterrupt)
		case <-st.timeout:
			st.timeout = nil
			begin(causeTimeout)
		case <-grace:
			r.out.progress("agent did not stop within %s; closing it", r.o.Grace)
			r.abandon(sess, events)
			return c
		}
	}
}

// abandon closes the session and drains what is left in the background.
func (r *run) abandon(sess adapters.Session, events <-chan adapters.Event) {
	go func() {
		for range events {
		}
	}()
	_ = sess.Close()
}

func (r *run) handle(ev adapters.Event) {
	var dec *adapters.PermissionDecision
	switch ev.Type {
	case adapters.EventText:
		if ev.MessageID != "" && ev.MessageID != r.lastMsgID && r.answer.Len() > 0 && !strings.HasSuffix(r.answer.String(), "\n") {
			r.answer.WriteString("\n\n")
		}
		if ev.MessageID != "" {
			r.lastMsgID = ev.MessageID
		}
		r.answer.WriteString(ev.Text)
	case adapters.EventSessionInfo:
		if ev.Session != nil && ev.Session.AgentSessionID != "" {
			r.sessionID = ev.Session.AgentSessionID
		}
	case adapters.EventUsage:
		r.usage = mergeUsage(r.usage, ev.Usage)
	case adapters.EventError:
		if ev.Error != nil {
			if ev.Error.Code == "auth" {
				r.authErr = true
			}
			if ev.Error.Fatal || r.fatal == nil {
				e := *ev.Error
				r.fatal = &e
			}
		}
	case adapters.EventDone:
		r.gotDone, r.stop = true, ev.StopReason
	case adapters.EventPermission:
		if ev.Permission != nil {
			d := r.o.Approve.Decide(ev.Permission)
			dec = &d
			if !d.Allowed() {
				r.denied = append(r.denied, Denial{ToolID: ev.Permission.Tool.ID, Title: titleOf(ev.Permission.Tool), Kind: ev.Permission.Tool.Kind, Reason: "--approve " + string(r.o.Approve)})
			}
			defer ev.Permission.Respond(d)
		}
	}
	r.out.event(ev, dec)
}

func titleOf(t adapters.ToolCall) string {
	if t.Title != "" {
		return t.Title
	}
	return t.Name
}

// mergeUsage keeps the latest non-zero value of each counter.
func mergeUsage(acc, u *adapters.Usage) *adapters.Usage {
	if u == nil {
		return acc
	}
	if acc == nil {
		c := *u
		return &c
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

// finish maps what happened to an exit code.
func (r *run) finish(c cause, _ error) Summary {
	var err error
	code := ExitOK
	switch {
	case c == causeInterrupt:
		code, err = ExitInterrupted, fmt.Errorf("interrupted")
	case c == causeTimeout:
		code, err = ExitTimeout, fmt.Errorf("timed out after %s", r.o.Timeout)
	case r.authErr:
		code, err = ExitNotAuthenticated, fmt.Errorf("not authenticated: %s (run 'hub doctor --agent %s')", r.fatalMsg(), r.o.Agent)
	case r.fatal != nil && r.fatal.Fatal:
		code, err = ExitAgentError, fmt.Errorf("%s", r.fatal.Message)
	case !r.gotDone:
		code, err = ExitAgentError, fmt.Errorf("agent stream ended without finishing the turn")
	case r.stop == adapters.StopCancelled:
		code, err = ExitAgentError, fmt.Errorf("the agent cancelled the turn")
	case len(r.denied) > 0:
		code, err = ExitDenied, fmt.Errorf("%d permission request(s) denied by --approve %s", len(r.denied), r.o.Approve)
	}
	return r.summary(code, err)
}

func (r *run) fatalMsg() string {
	if r.fatal == nil {
		return "the agent reported an auth error"
	}
	return r.fatal.Message
}

func (r *run) summary(code int, err error) Summary {
	s := Summary{
		StopReason: r.stop, AgentSessionID: r.sessionID, Usage: r.usage,
		DurationMs: r.o.Now().Sub(r.start).Milliseconds(), Denied: r.denied, ExitCode: code,
		Answer: r.answer.String(),
	}
	if err != nil {
		s.Error = err.Error()
	}
	if r.fatal != nil && code != ExitOK && code != ExitDenied {
		s.Detail = r.fatal.Detail
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
