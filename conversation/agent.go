package conversation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
)

// Agent is the agent session a session runs on, through its life: one
// start at a time, its Setup, sleep, close, and the crashes that stop
// restarts. Its funcs are called without the Agent's lock, so they may take
// the front end's; but Context is called with it, and Want (like Apply's
// funcs) in Apply's order.
type Agent struct {
	// Want is the Setup the session wants now; Started, when set, runs
	// once the started agent session is the Agent's.
	Want    func() Setup
	Start   func(ctx context.Context) (adapters.Session, Setup, error)
	Started func(ctx context.Context, b adapters.Session, warm bool, took time.Duration)
	Context func() context.Context // a new start's, which outlives a prompt's
	Now     func() time.Time
	Starts  *sync.WaitGroup // the starts in flight
	Log     zerolog.Logger
	Warm    *Warm                 // required
	Nap     func(why string) bool // sleeps the Agent unless a turn runs or waits on it
	// cfg orders a change of the wanted Setup with a start's publish, so a
	// change made while the agent starts reaches the started agent.
	cfg     sync.Mutex
	mu      sync.Mutex
	cur     adapters.Session
	applied Setup       // what cur runs with
	st      *agentStart // in flight, or failed until Await reports it
	closed  bool
	crashes Crashes
	idle    *time.Timer // the idle timeout (Use, Rest)
}

// Crashes are the times of an agent's latest crashes: three within a
// minute stop its restarts (Loop).
type Crashes []time.Time

func (c *Crashes) Add(now time.Time) {
	*c = append(*c, now)
	*c = (*c)[max(0, len(*c)-3):]
}

// Loop is ErrCrashLoop when the last crashes came too fast to restart at now.
func (c Crashes) Loop(now time.Time) error {
	if len(c) < 3 || now.Sub(c[0]) > time.Minute {
		return nil
	}
	return fmt.Errorf("%w; see its stderr in hub's log, fix the cause, then prompt again after a minute", ErrCrashLoop)
}

// agentStart is one start of an Agent: done closes with the agent session
// published, or with err kept for the next Await.
type agentStart struct {
	done   chan struct{}
	cancel context.CancelFunc
	err    error
	began  time.Time
	warm   bool // started ahead of a prompt
}

var ErrCrashLoop = errors.New("the agent crashed 3 times within a minute; hub stopped restarting it")

// Launch starts the agent session in the background unless the Agent has
// one, is starting one or is closed.
func (a *Agent) Launch(warm bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.cur != nil || a.st != nil {
		return false
	}
	ctx, cancel := context.WithCancel(a.Context())
	a.st = &agentStart{done: make(chan struct{}), cancel: cancel, began: a.Now(), warm: warm}
	a.Starts.Add(1)
	go a.run(ctx, a.st)
	return true
}

func (a *Agent) run(ctx context.Context, st *agentStart) {
	defer a.Starts.Done()
	defer st.cancel()
	defer close(st.done)
	for {
		b, have, err := a.Start(ctx)
		if err == nil {
			a.cfg.Lock()
			want := a.Want()
			if err = want.Reach(ctx, b, have); err == nil {
				ok := a.end(st, b, want, nil)
				a.cfg.Unlock()
				if ok && a.Started != nil {
					a.Started(ctx, b, st.warm, a.Now().Sub(st.began))
				}
				return
			}
			a.cfg.Unlock()
			_ = b.Close()
			if errors.Is(err, adapters.ErrNeedsRestart) {
				continue
			}
		}
		a.end(st, nil, Setup{}, err)
		return
	}
}

// end publishes b or keeps err for the next Await; a start abandoned
// meanwhile closes b. Caller holds a.cfg when b is not nil.
func (a *Agent) end(st *agentStart, b adapters.Session, setup Setup, err error) bool {
	a.mu.Lock()
	mine := a.st == st && !a.closed
	switch {
	case mine && err != nil:
		st.err = err
		a.Log.Warn().Err(err).Bool("warm", st.warm).Msg("agent start failed; the next prompt reports it")
	case mine:
		a.st, a.cur, a.applied = nil, b, setup
	}
	a.mu.Unlock()
	if !mine && b != nil {
		_ = b.Close()
	}
	return mine && err == nil
}

// Await returns the running agent session, the one in flight or a new
// one. A start that failed before is reported here, once.
func (a *Agent) Await(ctx context.Context) (b adapters.Session, waited bool, err error) {
	a.mu.Lock()
	err = a.crashes.Loop(a.Now())
	a.mu.Unlock()
	if err != nil {
		return nil, false, err
	}
	for {
		a.mu.Lock()
		b, st, closed := a.cur, a.st, a.closed
		a.mu.Unlock()
		switch {
		case closed:
			return nil, waited, adapters.ErrClosed
		case b != nil:
			return b, waited, nil
		case st == nil:
			a.Warm.admit(a, false)
			continue
		}
		select {
		case <-st.done:
		default:
			waited = true
			select {
			case <-st.done:
			case <-ctx.Done():
				return nil, waited, ctx.Err()
			}
		}
		a.mu.Lock()
		if a.st == st {
			a.st = nil // the error is reported now, and only now
		}
		a.mu.Unlock()
		if st.err != nil {
			return nil, waited, st.err
		}
	}
}

func (a *Agent) Current() adapters.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cur
}

func (a *Agent) Holds() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cur != nil || a.st != nil
}

// Sleep takes the agent session from the Agent, for the caller to close,
// and abandons a start in flight. Close is Sleep for good; Switch forgets
// the crashes of the agent that ran.
func (a *Agent) Sleep() adapters.Session  { return a.drop(false, false) }
func (a *Agent) Close() adapters.Session  { return a.drop(true, false) }
func (a *Agent) Switch() adapters.Session { return a.drop(false, true) }

func (a *Agent) drop(closing, switching bool) adapters.Session {
	a.mu.Lock()
	b, st := a.cur, a.st
	a.cur, a.st, a.closed = nil, nil, a.closed || closing
	if switching {
		a.crashes = nil
	}
	a.mu.Unlock()
	if st != nil {
		st.cancel()
	}
	if closing {
		a.rest(0)
		a.Warm.touch(a, true)
	}
	return b
}

// Retire takes b from the Agent if it is still its agent session; the
// caller closes it.
func (a *Agent) Retire(b adapters.Session, crashed bool) bool {
	now := a.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if crashed {
		a.crashes.Add(now)
	}
	mine := a.cur == b && b != nil
	if mine {
		a.cur = nil
	}
	return mine
}

// Apply brings the agent session to the Setup want returns, live where it
// can, else by closing it (restart) unless a turn runs on it
// (ErrNeedsRestart). commit records the change; a start in flight sees it.
func (a *Agent) Apply(ctx context.Context, want func() (s Setup, running bool), commit func()) (restart bool, err error) {
	a.cfg.Lock()
	defer a.cfg.Unlock()
	s, running := want()
	a.mu.Lock()
	b, have := a.cur, a.applied
	a.mu.Unlock()
	if b != nil {
		err := s.Reach(ctx, b, have)
		switch {
		case errors.Is(err, adapters.ErrNeedsRestart) && !running:
			a.Retire(b, false)
			_ = b.Close()
			restart = true
		case err != nil:
			return false, err
		}
	}
	commit()
	a.mu.Lock()
	if b != nil && a.cur == b {
		a.applied = s
	}
	a.mu.Unlock()
	return restart, nil
}

// StartResuming starts ad; a resume that fails starts it afresh (fresh:
// brief it) unless the agent cannot run at all.
func (a *Agent) StartResuming(ctx context.Context, ad adapters.Adapter, opts adapters.SessionOptions) (b adapters.Session, fresh bool, err error) {
	b, err = ad.Start(ctx, opts)
	if err == nil || opts.ResumeID == "" || errors.Is(err, adapters.ErrNotInstalled) || errors.Is(err, adapters.ErrNotAuthenticated) ||
		errors.Is(err, adapters.ErrBadCwd) || errors.Is(err, context.Canceled) {
		return b, opts.ResumeID == "", err
	}
	a.Log.Warn().Err(err).Str("agent", ad.Name()).Msg("resume failed; starting the agent afresh")
	opts.ResumeID, opts.Fork = "", false
	b, err = ad.Start(ctx, opts)
	return b, true, err
}

// StartPlan is how an agent session starts: continuing the agent's own
// session (a copy of it with Fork), or afresh. Lead goes ahead of the prompt.
type StartPlan struct {
	ResumeID, Instructions, Lead string
	Fork                         bool
}

// PlanStart resumes (or forks) id when the agent can, leading with what it
// missed; else it starts afresh, briefed through its instructions when it
// takes them (system level, never as the user's words).
func PlanStart(caps adapters.Capabilities, id string, fork bool, missed, brief string) StartPlan {
	switch {
	case id != "" && (fork && caps.Fork || !fork && caps.Resume):
		return StartPlan{ResumeID: id, Fork: fork, Lead: missed}
	case caps.Instructions:
		return StartPlan{Instructions: brief}
	}
	return StartPlan{Lead: brief}
}

// ResumeLost says a turn, the first on a session resumed from the agent's
// own session, failed as one whose stored session is gone (removed, corrupt,
// another version's) before any tool call or text: the front end runs it
// again, once, on a fresh start briefed from hub's record. A cancelled,
// blocked, stuck or over-budget turn, or one the agent's login or provider
// failed, is not.
func ResumeLost(ctx context.Context, oc Outcome) bool {
	switch {
	case ctx.Err() != nil || oc.Ending != Failed && oc.Ending != Lost || oc.Failure == nil || oc.Failure.Code == adapters.CodeHook || oc.Failure.Code == adapters.CodeBudget:
		return false
	case oc.Digest != nil && (len(oc.Digest.ToolCalls) > 0 || oc.Digest.Text() != ""): // it did something, or read the prompt: never again
		return false
	}
	switch Classify(oc.Failure) {
	case ClassAuth, ClassRateLimit, ClassProvider, ClassNotInstalled:
		return false
	}
	return true
}

// BriefedLine tells the user that agent went on afresh, briefed, after
// ResumeLost.
func BriefedLine(agent string, f *adapters.ErrorInfo) string {
	return fmt.Sprintf("%s could not go on in its own session (%s); hub started it afresh, briefed on the conversation", agent, f.Message)
}

func (p StartPlan) Briefs() bool { return p.Lead != "" || p.Instructions != "" }

// Apply puts the briefing ahead of so's own instructions.
func (p StartPlan) Apply(so *adapters.SessionOptions) {
	so.ResumeID, so.Fork = p.ResumeID, p.Fork
	so.Instructions = strings.TrimSpace(p.Instructions + so.Instructions)
}
