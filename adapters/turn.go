package adapters

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/trace"
)

// DefaultGrace is how long a cancelled turn may take to end when the front end sets no
// SessionOptions.CancelGrace.
const DefaultGrace = 5 * time.Second

// ErrCancelTimeout means the agent did not end a cancelled turn within the
// grace period: Prompt returned without it, and the session must be closed.
var ErrCancelTimeout = errors.New("the agent did not stop within the grace period after a cancel")

// PermissionFunc asks the user whether a tool may run. Prompt calls it on its own
// goroutine, in order with the turn's events; it must return when ctx ends.
type PermissionFunc func(ctx context.Context, req *PermissionRequest) PermissionDecision

// TurnError is a turn that ended in failure; Info says why.
type TurnError struct {
	Info ErrorInfo
	Err  error // the sentinel it stands for (ErrClosed for a crash), if any
}

func (e *TurnError) Error() string { return e.Info.Message }
func (e *TurnError) Unwrap() error { return e.Err }

type TurnRules struct {
	// Permission answers the agent's permission requests; nil passes each on to emit as
	// an EventPermission, whose consumer must Respond.
	Permission PermissionFunc
	Ask        AskFunc       // nil answers that the front end cannot ask
	Grace      time.Duration // bounds the wait for a cancelled turn to end (0: DefaultGrace)
	// Interrupt asks the agent to stop the turn; Run calls it once when ctx ends first.
	Interrupt func()
	Unknown   *UnknownRecords // nil: no warning about records hub does not understand
}

// RulesOf returns the rules opts set for a session's turns; unknown may be nil when the
// adapter notes unknown records itself.
func RulesOf(opts SessionOptions, interrupt func(), unknown *UnknownRecords) TurnRules {
	return TurnRules{Permission: opts.Permission, Ask: opts.Ask, Grace: opts.CancelGrace, Interrupt: interrupt, Unknown: unknown}
}

// TurnQueue bounds the events a turn holds for a consumer that is not keeping up.
const TurnQueue = 256

// Turn carries one prompt's events, in order, from an agent's reader to the caller of
// Prompt; Close ends it after the events it queues (normally ending with EventDone).
// Once a consumer is attached (Run, Events), Emit waits while TurnQueue events are
// queued: a stalled consumer stalls the agent's reader and so the agent, and memory
// stays bounded without dropping events. Before that Emit never waits: an adapter may
// queue events while its prompt request is still answered by the reader it would block.
type Turn struct {
	out      chan Event
	mu       sync.Mutex
	changed  *sync.Cond // items, ended or attached changed
	items    []Event
	attached bool

	cancelOnce sync.Once
	cancelled  chan struct{} // closed by Cancel
	ended      chan struct{} // closed by Close
}

func NewTurn() *Turn {
	t := &Turn{out: make(chan Event), cancelled: make(chan struct{}), ended: make(chan struct{})}
	t.changed = sync.NewCond(&t.mu)
	go t.pump()
	return t
}

// Events is the turn's raw stream, for a consumer that does not Run it.
func (t *Turn) Events() <-chan Event {
	t.attach()
	return t.out
}

func (t *Turn) attach() {
	t.mu.Lock()
	t.attached = true
	t.mu.Unlock()
}

// Emit queues events in one piece, waiting while the queue is full (see Turn); after
// Close it drops them.
func (t *Turn) Emit(evs ...Event) {
	if len(evs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.attached && !isClosed(t.ended) && len(t.items) >= TurnQueue {
		t.changed.Wait()
	}
	if !isClosed(t.ended) {
		t.items = append(t.items, evs...)
		t.changed.Broadcast()
	}
}

// Ask puts pr to the turn's consumer and waits for the answer; the turn's
// cancel or ctx's end answers it cancelled.
func (t *Turn) Ask(ctx context.Context, pr *PermissionRequest) PermissionDecision {
	t.Emit(Event{Type: EventPermission, Permission: pr})
	select {
	case d := <-pr.Decision():
		return d
	case <-t.cancelled:
	case <-ctx.Done():
	}
	pr.Respond(PermissionDecision{Cancelled: true})
	return PermissionDecision{Cancelled: true}
}

func (t *Turn) Queued() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.items)
}

// Close queues the final events and ends the turn after them; only the
// first call counts. It never waits.
func (t *Turn) Close(evs ...Event) {
	t.mu.Lock()
	if !isClosed(t.ended) {
		t.items = append(t.items, evs...)
		close(t.ended)
	}
	t.changed.Broadcast()
	t.mu.Unlock()
}

// pump hands queued events on one at a time, so the queue is all there is to bound.
func (t *Turn) pump() {
	for {
		t.mu.Lock()
		for len(t.items) == 0 && !isClosed(t.ended) {
			t.changed.Wait()
		}
		if len(t.items) == 0 {
			t.mu.Unlock()
			close(t.out)
			return
		}
		ev := t.items[0]
		t.items[0] = Event{}
		t.items = t.items[1:]
		t.changed.Broadcast()
		t.mu.Unlock()
		t.out <- ev
	}
}

// Run hands the turn's events to emit, on the caller's goroutine and in order, until
// the turn ends. It does what every adapter would otherwise repeat: it asks permission
// through the rules, notes unknown records, interrupts the agent when ctx ends and gives
// it the grace period, fails the tool calls left open, and decides whether the turn
// failed (a *TurnError).
func (t *Turn) Run(ctx context.Context, emit func(Event), r TurnRules) (StopReason, error) {
	t.attach()
	run := turnRun{emit: emit, rules: r, ended: t.ended}
	span := trace.From(ctx)
	stop, cancelled := ctx.Done(), false
	var grace <-chan time.Time
	for {
		select {
		case ev, ok := <-t.out:
			if !ok {
				// An agent may end on the cancel before this loop sees it.
				return run.finish(cancelled || ctx.Err() != nil)
			}
			if ev.Type != EventSessionInfo {
				span.Mark(trace.FirstEvent)
			}
			run.handle(ctx, ev)
		case <-stop:
			stop, cancelled = nil, true
			if r.Interrupt != nil {
				r.Interrupt()
			}
			grace = time.After(cmp.Or(r.Grace, DefaultGrace))
		case <-grace:
			go drain(t.out)
			return StopCancelled, ErrCancelTimeout
		}
	}
}

// drain empties an abandoned turn, refusing what it still asks.
func drain(events <-chan Event) {
	for ev := range events {
		ev.Refuse()
	}
}

// Refuse answers what ev asks, a permission or a question, as cancelled: no one will.
func (ev Event) Refuse() {
	if ev.Permission != nil {
		ev.Permission.Respond(PermissionDecision{Cancelled: true})
	}
	if ev.Question != nil {
		ev.Question.Respond(Answers{Cancelled: true})
	}
}

type turnRun struct {
	emit     func(Event)
	rules    TurnRules
	ended    <-chan struct{} // the agent ended the turn: it waits for no answer
	open     []ToolCall      // tool calls neither completed nor failed
	reason   StopReason
	done     bool
	fatal    *ErrorInfo // the last fatal error
	lastWarn *ErrorInfo
	worked   bool // text or a tool call arrived
}

func (r *turnRun) handle(ctx context.Context, ev Event) {
	switch ev.Type {
	case EventDone:
		r.reason, r.done = ev.StopReason, true
		return
	case EventPermission:
		if ev.Permission != nil {
			r.ask(ctx, ev)
			return
		}
	case EventQuestion:
		if ev.Question != nil {
			r.question(ctx, ev.Question)
			return
		}
	case EventToolCall, EventToolUpdate:
		if ev.Tool != nil {
			r.track(*ev.Tool, ev.Type == EventToolCall || ev.Tool.Status != "")
		}
	case EventRaw:
		if r.rules.Unknown != nil {
			r.rules.Unknown.Note(ev.Source)
		}
	}
	r.note(ev)
	r.emit(ev)
}

// note keeps what decides whether the turn failed.
func (r *turnRun) note(ev Event) {
	switch {
	case ev.Type == EventText || ev.Type == EventToolCall:
		r.worked = true
	case ev.Type != EventError || ev.Error == nil:
	case ev.Error.Fatal:
		r.fatal = ev.Error
	case !ev.Error.Retry: // a retry is the agent's to decide
		r.lastWarn = ev.Error
	}
}

// failure is the one rule for a failed turn: a fatal error (the last one wins), or
// nothing but non-fatal errors (the agent refused the prompt with an "error" notice).
func (r *turnRun) failure() *ErrorInfo {
	switch {
	case r.fatal != nil:
		return r.fatal
	case !r.worked && r.lastWarn != nil:
		return r.lastWarn
	}
	return nil
}

func (r *turnRun) ask(ctx context.Context, ev Event) {
	p := ev.Permission
	r.track(ToolCall{ID: p.Tool.ID, Title: p.Tool.Title, Kind: p.Tool.Kind}, true)
	cancelled := PermissionDecision{Cancelled: true}
	switch {
	case ctx.Err() != nil:
		p.Respond(cancelled)
	case r.rules.Permission == nil:
		r.emit(ev)
	default:
		p.Respond(put(ctx, r.ended, p.answered, p, r.rules.Permission, cancelled))
	}
}

func (r *turnRun) question(ctx context.Context, q *QuestionRequest) {
	cancelled := Answers{Cancelled: true}
	switch {
	case ctx.Err() != nil:
		q.Respond(cancelled)
	case r.rules.Ask == nil:
		q.Respond(Answers{Err: ErrCannotAsk})
	default:
		q.Respond(put(ctx, r.ended, q.answered, q, r.rules.Ask, cancelled))
	}
}

// put puts req to the user through ask. Once answered elsewhere (withdrawn, cancelled)
// or once the agent ended its turn, the asking ends so later events do not wait behind
// it, and a late answer is cancelled: it grants nothing.
func put[R, A any](ctx context.Context, ended, answered <-chan struct{}, req R, ask func(context.Context, R) A, cancelled A) A {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-answered:
		case <-ended:
		case <-ctx.Done():
		}
		cancel()
	}()
	if a := ask(ctx, req); ctx.Err() == nil {
		return a
	}
	return cancelled
}

// track notes whether a tool call is open; started says the event may open one.
func (r *turnRun) track(t ToolCall, started bool) {
	i := slices.IndexFunc(r.open, func(o ToolCall) bool { return o.ID == t.ID })
	switch {
	case t.ID == "":
	case t.Status == StatusCompleted || t.Status == StatusFailed:
		if i >= 0 {
			r.open = slices.Delete(r.open, i, i+1)
		}
	case i < 0 && started:
		r.open = append(r.open, ToolCall{ID: t.ID, Title: t.Title, Kind: t.Kind})
	}
}

// finish ends the turn. After a cancel, open tool calls are left to the client, which
// marks them itself.
func (r *turnRun) finish(cancelled bool) (StopReason, error) {
	if cancelled {
		return StopCancelled, nil
	}
	for _, t := range r.open {
		t.Status = StatusFailed
		r.emit(Event{Type: EventToolUpdate, Tool: &t})
	}
	if !r.done && r.failure() == nil {
		r.fatal = &ErrorInfo{Message: "the agent's stream ended without finishing the turn", Code: CodeProtocol, Fatal: true}
	}
	if f := r.failure(); f != nil {
		return StopEndTurn, &TurnError{Info: *f}
	}
	return cmp.Or(r.reason, StopEndTurn), nil
}

// Running holds a session's one running turn: Prompt starts it, the agent's reader emits
// to it, and its EventDone, End or Exited ends it. A session that keeps more state beside
// the turn starts it under its own lock, so that state and the turn change together.
type Running struct {
	mu   sync.Mutex
	turn *Turn
}

// Start starts a turn, or fails with ErrBusy while one runs.
func (r *Running) Start() (*Turn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.turn != nil {
		return nil, ErrBusy
	}
	r.turn = NewTurn()
	return r.turn, nil
}

// StartOn is Start for a session of name's long-lived process p: once p exited it
// refuses with its crash, wrapping closed (an ErrClosed).
func (r *Running) StartOn(p *proc.Process, name string, closed error) (*Turn, error) {
	if p.Exited() {
		return nil, CrashError(p, name, closed)
	}
	return r.Start()
}

// Current is the running turn, nil when the session is idle.
func (r *Running) Current() *Turn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.turn
}

// Cancelled reports whether a turn runs and was cancelled.
func (r *Running) Cancelled() bool {
	t := r.Current()
	return t != nil && t.IsCancelled()
}

// Emit hands ev to the running turn, which an EventDone ends. When idle it refuses what
// ev asks and reports false.
func (r *Running) Emit(ev Event) bool {
	switch t := r.Current(); {
	case t == nil:
		ev.Refuse()
		return false
	case ev.Type == EventDone:
		r.End(t, ev)
	default:
		t.Emit(ev)
	}
	return true
}

// End ends t with evs (the last an EventDone) and, if t still runs, makes the session
// idle; a nil t is nothing.
func (r *Running) End(t *Turn, evs ...Event) {
	if t == nil {
		return
	}
	r.mu.Lock()
	if r.turn == t {
		r.turn = nil
	}
	r.mu.Unlock()
	t.Close(evs...)
}

// Cancel marks the turn cancelled (its agent was asked to stop it); first says this call did.
func (t *Turn) Cancel() (first bool) {
	t.cancelOnce.Do(func() { close(t.cancelled); first = true })
	return first
}

func (t *Turn) Cancelled() <-chan struct{} { return t.cancelled }

func (t *Turn) IsCancelled() bool { return isClosed(t.cancelled) }

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Exited ends the running turn once the agent is gone: cancelled when hub stopped it,
// else with the crash's events.
func (r *Running) Exited(cancelled bool, crash ...Event) {
	if cancelled {
		crash = []Event{{Type: EventDone, StopReason: StopCancelled}}
	}
	r.End(r.Current(), crash...)
}
