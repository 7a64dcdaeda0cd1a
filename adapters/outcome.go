package adapters

import "errors"

// TurnOutcome watches one turn's events and decides whether the turn
// failed, the same way for every front end: a fatal error fails it (the
// last one wins), and so does a turn that produced nothing but non-fatal
// errors (the agent refused the prompt with an "error" notice).
type TurnOutcome struct {
	fatal    *ErrorInfo
	lastWarn *ErrorInfo
	worked   bool // text or a tool call arrived
}

// Note records one event of the turn.
func (o *TurnOutcome) Note(ev Event) {
	switch ev.Type {
	case EventText, EventToolCall:
		o.worked = true
	case EventError:
		if ev.Error == nil {
			return
		}
		e := *ev.Error
		if e.Fatal {
			o.fatal = &e
		} else {
			o.lastWarn = &e
		}
	}
}

// Fail records a failure outside the event stream (the agent did not
// start, the prompt was refused).
func (o *TurnOutcome) Fail(e *ErrorInfo) {
	f := *e
	f.Fatal = true
	o.fatal = &f
}

// Failure returns why the turn failed, or nil when it did not.
func (o *TurnOutcome) Failure() *ErrorInfo {
	switch {
	case o.fatal != nil:
		return o.fatal
	case !o.worked && o.lastWarn != nil && o.lastWarn.Code != CodeRetry:
		return o.lastWarn
	}
	return nil
}

// ErrorOf describes err, a failure to start an agent or send it a prompt,
// with the code its sentinel stands for.
func ErrorOf(err error) *ErrorInfo {
	e := &ErrorInfo{Message: err.Error(), Code: CodeAgent, Fatal: true}
	switch {
	case errors.Is(err, ErrNotInstalled):
		e.Code = CodeNotInstalled
	case errors.Is(err, ErrNotAuthenticated):
		e.Code = CodeAuth
	case errors.Is(err, ErrBadCwd), errors.Is(err, ErrUnsupported), errors.Is(err, ErrUnknownAgent):
		e.Code = CodeUsage
	case errors.Is(err, ErrClosed):
		e.Code = CodeCrash
	}
	return e
}
