package conversation

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/transcript"
)

// TurnSpec is one turn for RunTurn.
type TurnSpec struct {
	Agent   string
	Session adapters.Session
	Prompt  []adapters.Content
	// Lead, when set, is called once the prompt hooks let the prompt
	// through, before the agent gets it (a front end keeps the prompt from
	// then on, never one a hook blocked), and gives hub's text to put ahead
	// of it (a briefing), which the hooks do not judge: they judge the
	// user's. A blocked or cancelled prompt so leaves it for the next.
	Lead func() string
	// Reached, when set, is called once the agent has the prompt Lead went
	// ahead of: before its first answer or retry notice (an event other
	// than what it may tell before reading the prompt) or at the turn's
	// end, a cancelled one too, as the agent ended it (it read the prompt,
	// so a lead again would tell it twice). A prompt the agent may not have
	// read (it exited, the write failed, it failed or crashed first) leaves
	// it uncalled: the front end keeps the lead for the next prompt, a
	// duplicate rather than a loss.
	Reached func()
	// Hooks observe the event stream and may block the prompt; Audit records
	// the prompt, the events and the turn's end. Each may be nil; their
	// lifetime is the caller's (a session may keep them for many turns).
	Hooks *hooks.Observer
	Audit *transcript.Audit
	// Gate is the session's permission gate: its decisions are the
	// turn's events, audited, in the digest and emitted; it decides only
	// while such a turn runs. Nil: none.
	Gate *Gate
	// Emit is the front end's translation of each event, after the
	// observers and the digest saw it; nil: none.
	Emit    func(adapters.Event)
	Narrate func(text string) // when set, gets the text written before a tool call (trimmed) as it starts
	// Workspace is the directory whose changed files the digest lists;
	// "" lists only those the tool calls named.
	Workspace string
	Model     string // the model asked for, priced when the agent names none
	// Digest, when set, is filled in place, for a front end that reads it
	// while the turn runs (on Emit's goroutine); nil: RunTurn makes one.
	Digest *Digest
	// Watch says a next agent waits to take the turn over: the turn's
	// failure is then decided early (Watch), within WatchBound (0: the
	// default provider timeout).
	Watch      bool
	WatchBound time.Duration
}

// Observers are the hooks and the audit transcript in dir of an agent's
// session (meta's), each nil when off or when the agent keeps its own (the
// native loop writes a transcript named after its session id, as the audit
// would be).
func Observers(caps adapters.Capabilities, hs *hooks.Runner, dir string, meta transcript.Meta, report func(error)) (*hooks.Observer, *transcript.Audit) {
	var audit *transcript.Audit
	if dir != "" && !caps.Transcript {
		audit = transcript.NewAudit(dir, meta, report)
	}
	return HooksOf(caps, hs).Observe(hooks.Input{Cwd: meta.Cwd, Agent: meta.Agent}), audit
}

// HooksOf are the hooks of hs a turn's observer runs for an agent: all of
// them, or only the prompt's for an agent that runs the others itself (the
// native loop gates its own tools); the prompt's run here for every agent,
// so a blocked prompt is the turn's failure alike.
func HooksOf(caps adapters.Capabilities, hs *hooks.Runner) *hooks.Runner {
	if caps.Hooks {
		return hs.Only(hooks.UserPromptSubmit)
	}
	return hs
}

// Outcome is how a turn ended.
type Outcome struct {
	Stop   adapters.StopReason
	Digest *Digest
	// Failure is why the turn failed: the agent's error, a prompt a hook
	// blocked, or a crash with the agent's exit status and stderr tail;
	// nil when it did not fail (a cancelled turn did not).
	Failure  *adapters.ErrorInfo
	Warnings []string // the hooks that failed during the turn
	Ending   Ending
	// Crashed says the agent is gone (it crashed, or the prompt found it
	// closed): RunTurn closes its session, and counts for Crashes.
	Crashed bool
}

// Ending is how a turn ended, the one reading of RunTurn's error that each
// front end translates.
type Ending int

const (
	Answered Ending = iota // the agent ended the turn: Outcome.Stop
	Failed                 // the agent failed it, or a hook blocked it: Outcome.Failure
	Stuck                  // the agent did not stop within its grace after a cancel: RunTurn closes its session
	Lost                   // the agent never took the prompt, or the turn was cut off: the error says why
)

// RunTurn runs one turn the way every front end does: the prompt hooks
// gate it, the prompt goes to the agent with the hooks, the audit and the
// digest observing its event stream (the gate's decisions included), the
// turn's end reaches them, and the way it ended is classified. The error
// is the one the agent's Prompt returned (adapters.ErrCancelTimeout,
// adapters.ErrClosed, a *TurnError...), for front ends that act on it,
// prefixed with the crash when the agent is gone; Outcome.Failure says the
// same for people.
// RunTurn may run many times on one session, one turn at a time.
func RunTurn(ctx context.Context, s TurnSpec) (Outcome, error) {
	d := cmp.Or(s.Digest, &Digest{})
	turnCtx, watch := ctx, (*Watch)(nil)
	if s.Watch {
		var cancel context.CancelFunc
		turnCtx, cancel = context.WithCancel(ctx)
		defer cancel()
		watch = NewWatch(s.WatchBound, cancel)
	}
	// The workspace's state is read while the prompt hooks run; both end
	// before the prompt reaches the agent.
	// A NextTurn's changes count from before the first turn.
	snap := make(chan *Snapshot, 1)
	if d.before != nil || s.Workspace == "" {
		snap <- d.before
	} else {
		go func() { snap <- TakeSnapshot(ctx, s.Workspace) }()
	}
	reached := func() {} // observe sees the agent's events and the gate's decisions on what it asks: a prompt that went
	if s.Reached != nil {
		reached = sync.OnceFunc(s.Reached)
	}
	observe := s.observe(d, watch, reached)
	endGate := s.Gate.begin(observe) // its decisions are the turn's events
	blocked := PromptHooks(ctx, s.Hooks, s.Agent, s.Prompt)
	before := <-snap
	d.before = before
	prompt := s.Prompt
	if blocked == nil && ctx.Err() == nil { // the lead goes only with a prompt that goes
		prompt = s.withLead()
	}
	s.Audit.Prompt(s.Agent, prompt)
	stop, err := adapters.StopEndTurn, blocked
	switch {
	case ctx.Err() != nil: // cancelled before the prompt went: the agent gets nothing
		stop, err = adapters.StopCancelled, nil
	case blocked == nil:
		stop, err = s.Session.Prompt(turnCtx, prompt, s.Hooks.Wrap(observe))
		if err == nil { // it ended the turn, on a cancel too: it had the prompt
			reached()
		}
	}
	if decided := watch.Stop(); decided != nil {
		stop, err = adapters.StopEndTurn, &adapters.TurnError{Info: *decided}
	}
	endGate() // no decision after the turn's end
	s.Audit.EndTurn(stop)
	s.Hooks.EndTurn(stop)
	o := Outcome{Stop: stop, Digest: d, Warnings: s.Hooks.Flush(ctx)}
	d.finish(context.WithoutCancel(ctx), before, s.Model, s.Workspace)
	d.AgentSessionID = cmp.Or(d.AgentSessionID, s.Session.ID())
	err = o.classify(ctx, s.Session, err)
	if o.Crashed || o.Ending == Stuck { // nothing of it runs on, whichever front end ran it
		go func() { _ = s.Session.Close() }()
	}
	return o, err
}

// withLead is the prompt the agent gets: the lead in front of its text.
func (s TurnSpec) withLead() []adapters.Content {
	if s.Lead == nil {
		return s.Prompt
	}
	switch lead := s.Lead(); {
	case lead == "":
		return s.Prompt
	case len(s.Prompt) > 0 && s.Prompt[0].Type == adapters.ContentText:
		first := s.Prompt[0]
		first.Text = lead + first.Text
		return slices.Concat([]adapters.Content{first}, s.Prompt[1:])
	default:
		return slices.Concat([]adapters.Content{{Type: adapters.ContentText, Text: lead}}, s.Prompt)
	}
}

// PromptHooks runs the UserPromptSubmit hooks of hs on a prompt of agent,
// or on input steered into its running turn, before the agent gets it:
// the error, a *adapters.TurnError, says why one blocked it. A hook that
// failed lets it pass, with a warning in hs's Flush. A prompt
// adapters.Judged already passes unasked.
func PromptHooks(ctx context.Context, hs *hooks.Observer, agent string, prompt []adapters.Content) error {
	if adapters.IsJudged(ctx) {
		return nil
	}
	if gate := hs.Prompt(ctx, agent, prompt); gate.Decision == hooks.Deny {
		return hooks.Blocked(gate)
	}
	return nil
}

// observe is the chain each event goes through after the hooks: the
// audit, the digest, then the front end.
func (s TurnSpec) observe(d *Digest, w *Watch, reached func()) func(adapters.Event) {
	return func(ev adapters.Event) {
		switch ev.Type {
		case adapters.EventError: // a retry notice: a model call with the prompt failed
			if ev.Error != nil && ev.Error.Retry {
				reached()
			}
		case adapters.EventSessionInfo, adapters.EventCommands, adapters.EventRaw, adapters.EventUsage: // an agent that never read the prompt may send these
		default:
			reached()
		}
		w.Observe(ev)
		s.Audit.Event(ev)
		if n := d.Note(ev); n != "" && s.Narrate != nil {
			s.Narrate(n)
		}
		if s.Emit != nil {
			s.Emit(ev)
		}
	}
}

// classify reads how the turn ended from the error the agent's Prompt
// returned (Ending, Crashed) and why it failed (Failure, nil when it did
// not): a turn error as the agent told it; a prompt the agent never took
// (a write to a process that is gone, a closed session) as the agent's
// crash with its exit status and stderr tail when it has exited. A crash
// reads in its own words only, whatever the agent wrapped it in: it names
// the agent once. It returns RunTurn's error.
func (o *Outcome) classify(ctx context.Context, sess adapters.Session, err error) error {
	var failed *adapters.TurnError
	o.Crashed = errors.Is(err, adapters.ErrClosed)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, adapters.ErrCancelTimeout):
		o.Stop, o.Ending = adapters.StopCancelled, Stuck // its tools run on until its process is stopped
		return err
	case errors.As(err, &failed):
		o.Ending, o.Failure = Failed, &failed.Info
		if failed.Info.Code == adapters.CodeCrash {
			o.Crashed, err = true, failed
		}
		return err
	}
	o.Ending = Lost
	if ctx.Err() != nil {
		return err
	}
	o.Failure = adapters.ErrorOf(err)
	if x, ok := sess.(adapters.Exiter); ok {
		if crash := x.Exit(); crash != nil {
			o.Failure = crash
			if crash.Code == adapters.CodeCrash {
				o.Crashed, err = true, adapters.Mark(err, errors.New(crash.Message)) // the crash, not the broken pipe
			}
		}
	}
	return err
}
