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

type TurnSpec struct {
	Agent   string
	Session adapters.Session
	Prompt  []adapters.Content
	// Lead, when set, gives hub's text (a briefing) to put ahead of a prompt
	// the hooks let through; the hooks judge only the user's text. A blocked
	// or cancelled prompt leaves the lead for the next.
	Lead func() string
	// Reached, when set, is called once the agent surely read the prompt
	// Lead went ahead of (an answer, a retry notice, the turn's end). If it
	// may not have (it exited or failed first), the front end keeps the
	// lead: a duplicate rather than a loss.
	Reached func()
	// Hooks and Audit may be nil; the caller owns them across turns.
	Hooks *hooks.Observer
	Audit *transcript.Audit
	// Gate decides only while a turn runs; its decisions are the turn's events.
	Gate    *Gate
	Emit    func(adapters.Event) // after the observers and the digest saw the event
	Narrate func(text string)    // gets the text written before a tool call (trimmed) as it starts
	// Workspace is the directory whose changed files the digest lists;
	// "" lists only those the tool calls named.
	Workspace string
	Model     string // the model asked for, priced when the agent names none
	// Digest, when set, is filled in place, for a front end that reads it
	// while the turn runs (on Emit's goroutine).
	Digest *Digest
	// Watch says a next agent waits to take the turn over, so its failure
	// is decided early, within WatchBound (0: the default provider timeout).
	Watch      bool
	WatchBound time.Duration
}

// Observers are the hooks and the audit transcript in dir of meta's
// session, each nil when off or when the agent keeps its own.
func Observers(caps adapters.Capabilities, hs *hooks.Runner, dir string, meta transcript.Meta, report func(error)) (*hooks.Observer, *transcript.Audit) {
	var audit *transcript.Audit
	if dir != "" && !caps.Transcript {
		audit = transcript.NewAudit(dir, meta, report)
	}
	return HooksOf(caps, hs).Observe(hooks.Input{Cwd: meta.Cwd, Agent: meta.Agent}), audit
}

// HooksOf are the hooks of hs hub runs for an agent: only the prompt's
// for one that runs the others itself, so a blocked prompt fails alike.
func HooksOf(caps adapters.Capabilities, hs *hooks.Runner) *hooks.Runner {
	if caps.Hooks {
		return hs.Only(hooks.UserPromptSubmit)
	}
	return hs
}

type Outcome struct {
	Stop     adapters.StopReason
	Digest   *Digest
	Failure  *adapters.ErrorInfo // nil when the turn did not fail (a cancelled one did not)
	Warnings []string            // the hooks that failed during the turn
	Ending   Ending
	Crashed  bool // the agent is gone: RunTurn closed its session
}

// Ending is the one reading of RunTurn's error that each front end translates.
type Ending int

const (
	Answered Ending = iota // the agent ended the turn: Outcome.Stop
	Failed                 // the agent failed it, or a hook blocked it: Outcome.Failure
	Stuck                  // the agent did not stop within its grace after a cancel: RunTurn closes its session
	Lost                   // the agent never took the prompt, or the turn was cut off: the error says why
)

// RunTurn runs one turn the way every front end does. The error is the one
// the agent's Prompt returned, prefixed with the crash when the agent is
// gone; Outcome.Failure says the same for people. It may run many times on
// one session, one turn at a time.
func RunTurn(ctx context.Context, s TurnSpec) (Outcome, error) {
	d := cmp.Or(s.Digest, &Digest{})
	turnCtx, watch := ctx, (*Watch)(nil)
	if s.Watch {
		var cancel context.CancelFunc
		turnCtx, cancel = context.WithCancel(ctx)
		defer cancel()
		watch = NewWatch(s.WatchBound, cancel)
	}
	// The workspace is read while the prompt hooks run; a NextTurn's
	// changes count from before the first turn.
	snap := make(chan *Snapshot, 1)
	if d.before != nil || s.Workspace == "" {
		snap <- d.before
	} else {
		go func() { snap <- TakeSnapshot(ctx, s.Workspace) }()
	}
	reached := func() {}
	if s.Reached != nil {
		reached = sync.OnceFunc(s.Reached)
	}
	observe := s.observe(d, watch, reached)
	endGate := s.Gate.begin(observe)
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

// PromptHooks runs the UserPromptSubmit hooks of hs on a prompt or steered
// input: the error, a *adapters.TurnError, says why one blocked it. A hook
// that failed lets it pass, with a warning in hs's Flush.
func PromptHooks(ctx context.Context, hs *hooks.Observer, agent string, prompt []adapters.Content) error {
	if adapters.IsJudged(ctx) {
		return nil
	}
	if gate := hs.Prompt(ctx, agent, prompt); gate.Decision == hooks.Deny {
		return hooks.Blocked(gate)
	}
	return nil
}

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

// classify sets Ending, Crashed and Failure from Prompt's error and returns
// RunTurn's. A prompt the agent never took reads as its crash when it has
// exited, in the crash's own words only, so the agent is named once.
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
