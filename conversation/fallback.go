package conversation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/personas"
)

// Class is why an agent could not do the work, as the fallback rule sees
// it; ClassNone means the failure is the answer and stands.
type Class string

// Each class is spelt as the error code a decided failure of it gets.
const (
	ClassNone         Class = ""
	ClassNotInstalled       = Class(adapters.CodeNotInstalled)
	ClassStart              = Class(adapters.CodeStart) // the program is there but did not start
	ClassAuth               = Class(adapters.CodeAuth)
	ClassRateLimit          = Class(adapters.CodeRateLimit) // rate limit or quota
	ClassProvider           = Class(adapters.CodeProvider)  // 5xx or overloaded
	ClassCrash              = Class(adapters.CodeCrash)
)

// DefaultProviderTimeout is how long a provider may keep failing, through
// the agent's own retries, before the next agent takes over.
const DefaultProviderTimeout = 30 * time.Second

// authPhrases recognise agents without usable credentials that do not tag
// the error "auth".
var authPhrases = regexp.MustCompile(`(?i)not logged in|please run /login|\blog ?in required|not authenticated|unauthenticated|authentication (?:failed|error|required)|authentication_error|invalid[ _-](?:x-)?api[ _-]?key|incorrect api key|api key (?:is )?(?:missing|not (?:set|found|configured|valid))|no api key|missing api key|\b401\b|unauthorized`)

var providerPhrases = regexp.MustCompile(`(?i)\bHTTP 5\d\d\b|\bstatus:? 5\d\d\b|\b5\d\d (?:Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)|internal server error|overloaded`)

// Classify says what kind of failure e is, for every agent alike.
func Classify(e *adapters.ErrorInfo) Class {
	switch {
	case e == nil, e.Code == adapters.CodeUsage, e.Code == adapters.CodeHook, e.Code == adapters.CodeContext, e.Code == adapters.CodeBudget:
		return ClassNone
	case e.Code == adapters.CodeNotInstalled:
		return ClassNotInstalled
	case e.Code == adapters.CodeAuth, e.Status == 401, e.Status == 403, authPhrases.MatchString(e.Message):
		return ClassAuth
	case e.Code == adapters.CodeRateLimit, e.Status == 429:
		return ClassRateLimit
	case e.Status >= 500, providerPhrases.MatchString(e.Message):
		return ClassProvider
	case e.Code == adapters.CodeCrash, e.Code == adapters.CodeStart:
		return Class(e.Code)
	}
	return ClassNone
}

// ClassifyStart classifies an agent that failed to start or to take the prompt.
func ClassifyStart(err error) Class {
	var te *adapters.TurnError
	switch {
	case err == nil, errors.Is(err, adapters.ErrBadCwd), errors.Is(err, adapters.ErrUnsupported),
		errors.Is(err, adapters.ErrUnknownAgent), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ClassNone
	case errors.As(err, &te):
		return Classify(&te.Info)
	case errors.Is(err, adapters.ErrNotInstalled), errors.Is(err, proc.ErrNotFound):
		return ClassNotInstalled
	case errors.Is(err, adapters.ErrNotAuthenticated), authPhrases.MatchString(err.Error()):
		return ClassAuth
	case errors.Is(err, adapters.ErrClosed):
		return ClassCrash
	}
	return ClassStart
}

// FallbackReason is the rule every front end applies: the next agent takes
// over when this one could not do the work and no tool call started (its
// effects may have happened). "" when the failure stands.
func FallbackReason(agent string, c Class, toolStarted bool) string {
	if why := fallbackWhy[c]; why != "" && !toolStarted {
		return agent + why
	}
	return ""
}

func HandoverLine(why, next string) string { return why + "; continuing with " + next }

var fallbackWhy = map[Class]string{ClassNotInstalled: " is not installed", ClassStart: " could not start", ClassAuth: " is not logged in",
	ClassRateLimit: " is rate-limited", ClassProvider: "'s provider is failing", ClassCrash: " crashed"}

// Fallbacks is the walk of one turn down its first agent's fallback list:
// the next agent of List not tried that Registry has and Ready passes takes
// the turn over.
type Fallbacks struct {
	Registry *adapters.Registry
	List     []string
	Ready    func(adapters.Adapter) error
	Skipped  func(agent string, err error) // hears of each agent passed over, before the handover
}

// FallbackAgents is reg where, when first is a persona, each agent of list
// runs as that persona under its own name, without its backend's model: a
// fallback never widens what a persona narrowed.
func FallbackAgents(reg *adapters.Registry, first string, list []string) *adapters.Registry {
	a, _ := reg.Get(first)
	p, ok := a.(*personas.Adapter)
	if !ok || len(list) == 0 {
		return reg
	}
	as := p.P
	as.Model = "" // a model name is its backend's: the next agent runs on its own
	out := adapters.NewRegistry()
	for _, n := range reg.Names() {
		b, _ := reg.Get(n)
		if slices.Contains(list, n) && n != first {
			b = &personas.Adapter{P: as, Backend: b, As: n}
		}
		out.Register(b)
	}
	return out
}

// RunsAs is the persona a runs as, having taken that persona's turn over
// (FallbackAgents); "" for any other.
func RunsAs(a adapters.Adapter) string {
	if p, ok := a.(*personas.Adapter); ok && p.As != "" {
		return p.P.Name
	}
	return ""
}

// Walk tries the turn on first, then on each agent that takes it over.
// try's watch says a next agent waits (TurnSpec.Watch); it returns how the
// attempt failed and whether a tool call started. Walk returns why the last
// attempt could not do the work; "" when its outcome stands.
func (f Fallbacks) Walk(ctx context.Context, first string, try func(agent string, watch bool) (Class, bool), handover func(from, to, why string)) string {
	tried := map[string]bool{}
	for agent := first; ; {
		tried[agent] = true
		class, toolStarted := try(agent, f.next(tried, nil) != "")
		why := FallbackReason(agent, class, toolStarted)
		if why == "" || ctx.Err() != nil {
			return why
		}
		next := f.next(tried, f.Skipped)
		if next == "" {
			return why
		}
		handover(agent, next, why)
		agent = next
	}
}

func (f Fallbacks) next(tried map[string]bool, skipped func(string, error)) string {
	for _, n := range f.List {
		if tried[n] {
			continue
		}
		a, err := f.Registry.Get(n)
		if err == nil {
			err = f.Ready(a)
		}
		if err == nil {
			return n
		}
		if skipped != nil {
			tried[n] = true
			skipped(n, err)
		}
	}
	return ""
}

// Watch decides a turn's failure before the agent gives up on its own (an
// auth refusal at the first retry, a provider failing past the bound) and
// cancels the turn. A nil *Watch watches nothing.
type Watch struct {
	bound  time.Duration
	cancel func()

	mu      sync.Mutex
	timer   *time.Timer
	last    *adapters.ErrorInfo // the latest retry notice
	decided *adapters.ErrorInfo
	off     bool // a tool call started: the turn is the agent's
}

// NewWatch watches a turn that cancel stops; bound 0 is the default.
func NewWatch(bound time.Duration, cancel func()) *Watch {
	return &Watch{bound: cmp.Or(max(bound, 0), DefaultProviderTimeout), cancel: cancel}
}

func (w *Watch) Observe(ev adapters.Event) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.decided != nil || w.off {
		return
	}
	switch ev.Type {
	case adapters.EventToolCall, adapters.EventText, adapters.EventThought:
		w.off = ev.Type == adapters.EventToolCall // else the provider answers again
		if w.timer != nil {
			w.timer.Stop()
			w.timer, w.last = nil, nil
		}
	case adapters.EventError:
		if ev.Error == nil || ev.Error.Fatal {
			return
		}
		switch Classify(ev.Error) {
		case ClassAuth:
			msg := ev.Error.Message
			if ev.Error.Status != 0 {
				msg = fmt.Sprintf("the provider refused the credentials (HTTP %d)", ev.Error.Status)
			}
			w.decideLocked(*ev.Error, msg)
		case ClassProvider, ClassRateLimit:
			w.last = new(*ev.Error)
			if w.timer == nil {
				w.timer = time.AfterFunc(w.bound, w.expire)
			}
		}
	}
}

func (w *Watch) expire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer == nil || w.decided != nil || w.off {
		return
	}
	w.decideLocked(*w.last, fmt.Sprintf("the provider kept failing for %s (last: %s)", w.bound, w.last.Message))
}

func (w *Watch) decideLocked(e adapters.ErrorInfo, msg string) {
	e.Code, e.Message, e.Fatal, e.Retry = adapters.ErrorCode(Classify(&e)), msg, true, false // the turn's failure, no notice
	w.decided = &e
	w.cancel()
}

func (w *Watch) Stop() *adapters.ErrorInfo {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.off = true
	if w.timer != nil {
		w.timer.Stop()
	}
	return w.decided
}
