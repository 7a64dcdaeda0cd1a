package acp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/trace"
	"github.com/hubdev/hub/personas"
)

// Defaults of Options.WarmAgents and Options.IdleTimeout.
const (
	DefaultWarmAgents  = 4
	DefaultIdleTimeout = 30 * time.Minute
	// surfaceWait bounds how long hub waits for a started agent to report
	// its commands and options.
	surfaceWait = 15 * time.Second
)

// errAbandoned marks a start given up because the session closed,
// switched agent or gave its warm slot away; whoever waits starts again.
var errAbandoned = errors.New("agent start abandoned")

// start is one agent start of a session, shared by everyone who needs the
// agent: the warm-up after session/new and a prompt that arrives before it
// is done. It ends once: done closes with b published as the session's
// backend, or with err kept for the next prompt to report.
type start struct {
	done   chan struct{}
	cancel context.CancelFunc
	err    error
	began  time.Time
	warm   bool // started ahead of a prompt
}

// launchLocked starts the session's agent in the background. Caller holds
// ss.mu, and the session has neither a backend nor a start.
func (ss *session) launchLocked(warm bool) *start {
	ctx, cancel := context.WithCancel(trace.Begin(ss.srv.ctx, "start", ss.rec.SessionID))
	st := &start{done: make(chan struct{}), cancel: cancel, began: ss.srv.opts.Now(), warm: warm}
	ss.starting = st
	ss.srv.starts.Add(1)
	go func() {
		defer ss.srv.starts.Done()
		ss.runStart(ctx, st)
	}()
	return st
}

// runStart starts the agent with the setup the session wants, brings it up
// to date with any change made meanwhile (starting again with it when that
// cannot be done live), and publishes it.
func (ss *session) runStart(ctx context.Context, st *start) {
	defer st.cancel()
	defer close(st.done)
	for {
		b, have, err := ss.startAgent(ctx, st)
		if err != nil {
			ss.failStart(st, err)
			return
		}
		ss.cfgMu.Lock()
		ss.mu.Lock()
		want := ss.setupOf(ss.rec)
		ss.mu.Unlock()
		err = want.Reach(ctx, b, have)
		if err == nil {
			ok := ss.publish(st, b, want)
			ss.cfgMu.Unlock()
			if ok {
				trace.Mark(ctx, trace.Started)
				ss.started(st, b)
			}
			return
		}
		ss.cfgMu.Unlock()
		_ = b.Close()
		if !errors.Is(err, errRestart) {
			ss.failStart(st, err)
			return
		}
	}
}

// setupOf is the setup a session whose record is r wants its agent to
// run with. Caller holds ss.mu when r is ss.rec.
func (ss *session) setupOf(r *Record) conversation.Setup {
	return conversation.Setup{Model: r.Model, Mode: r.Mode, Options: maps.Clone(r.Options), Delegation: ss.srv.delegationOn(r.Delegation),
		MCPServers: ss.mcp, AddDirs: slices.Clone(r.AddDirs)}
}

// startAgent runs the adapter's Start with the setup the session wants,
// unless st was abandoned (the record may name another agent by then),
// and returns that setup.
func (ss *session) startAgent(ctx context.Context, st *start) (adapters.Session, conversation.Setup, error) {
	ss.mu.Lock()
	if ss.starting != st {
		ss.mu.Unlock()
		return nil, conversation.Setup{}, errAbandoned
	}
	name := ss.rec.Agent
	a, err := ss.agents().Get(name)
	if err != nil {
		ss.mu.Unlock()
		return nil, conversation.Setup{}, err
	}
	setup := ss.setupOf(ss.rec)
	opts := adapters.SessionOptions{Cwd: ss.rec.Cwd, AddDirs: slices.Clone(setup.AddDirs), MCPServers: ss.mcpFor(a), Model: setup.Model, Mode: setup.Mode,
		Options: maps.Clone(setup.Options), Editor: ss.editor, CancelGrace: ss.srv.opts.CancelGrace, Permission: ss.permission, Ask: ss.ask,
		Rules: &ss.set.Permissions, Hooks: ss.set.HookConfig}
	if a.Capabilities().Resume {
		opts.ResumeID = ss.rec.AgentSessionID
	}
	forking := ss.rec.ForkOf != "" && opts.ResumeID == "" && a.Capabilities().Fork
	if forking { // a fork: the agent continues a copy of the source's session
		opts.ResumeID, opts.Fork = ss.rec.ForkOf, true
	}
	missed := ss.answeredBefore() && ss.rec.Handover != handoverNone && !forking
	back := opts.ResumeID != "" && ss.since > 0 // switched back to: it resumes, and hears what it missed
	ss.mu.Unlock()
	switch {
	case !setup.Delegation || !personas.MayDelegate(a):
	case a.Capabilities().DelegateTool:
		opts.Delegate, opts.DelegateAgents = ss.delegateFunc(a)
	default:
		if hub, ok := ss.hubServer(a); ok {
			opts.MCPServers = append(slices.Clone(opts.MCPServers), hub)
		}
	}
	viaStart := false
	if missed && opts.ResumeID == "" && a.Capabilities().Instructions {
		// The best channel: system-level, never as the user's words.
		opts.Instructions = strings.TrimSpace(ss.briefing() + opts.Instructions)
		viaStart = true
	}
	var pending string
	if missed && back {
		pending = ss.briefing() // only what happened since it left
	}
	b, fresh, err := ss.startWithResume(ctx, a, opts)
	if err != nil {
		return nil, setup, fmt.Errorf("start %s: %w", name, err)
	}
	ss.mu.Lock()
	ss.since = 0
	if forking {
		ss.rec.ForkOf = "" // its own copy (or, when forking failed, a briefed start) from now on
	}
	ss.mu.Unlock()
	if fresh && !viaStart && ss.missed() && ss.handover() {
		pending = ss.briefing() // it lost its session: all of it
	}
	ss.mu.Lock()
	ss.pendingBrief, ss.briefed = pending, viaStart
	ss.mu.Unlock()
	return b, setup, nil
}

// failStart keeps err for the prompt that waits, or the next one; a start
// that was abandoned meanwhile just ends.
func (ss *session) failStart(st *start, err error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.starting != st {
		st.err = errAbandoned
		return
	}
	st.err = err
	ss.srv.log.Warn().Err(err).Str("session", ss.rec.SessionID).Bool("warm", st.warm).Msg("agent start failed; the next prompt reports it")
}

// publish makes b, which runs with setup, the session's backend unless the
// start was abandoned (then b is closed). Caller holds ss.cfgMu.
func (ss *session) publish(st *start, b adapters.Session, setup conversation.Setup) bool {
	ss.mu.Lock()
	mine := ss.starting == st && !ss.closed
	if mine {
		ss.starting, ss.backend, ss.applied = nil, b, setup
	} else {
		st.err = errAbandoned
	}
	ss.mu.Unlock()
	if !mine {
		_ = b.Close() // on the start's goroutine, which Serve waits for
	}
	return mine
}

// started logs the start, arms the idle timer and fetches what the agent
// offers, which the editor then sees before any prompt.
func (ss *session) started(st *start, b adapters.Session) {
	ss.srv.log.Info().Str("session", ss.id()).Str("agent", ss.agentName()).Bool("warm", st.warm).
		Dur("took", ss.srv.opts.Now().Sub(st.began)).Msg("agent up")
	ss.idle()
	if sf, ok := b.(adapters.Surfacer); ok {
		go ss.fetchSurface(sf, b)
	}
}

// fetchSurface asks a started agent for its commands and options and sends
// them as updates, unless the session moved on to another backend.
func (ss *session) fetchSurface(sf adapters.Surfacer, b adapters.Session) {
	ctx, cancel := context.WithTimeout(ss.srv.ctx, surfaceWait)
	defer cancel()
	sur, err := sf.Surface(ctx)
	if err != nil {
		ss.srv.log.Debug().Err(err).Str("session", ss.id()).Msg("agent reported no commands or options")
		return
	}
	ss.mu.Lock()
	current := ss.backend == b && !ss.closed
	if current {
		ss.live = &sur
		if len(sur.Commands) > 0 {
			ss.agentCommands = sur.Commands
		}
	}
	ss.mu.Unlock()
	if !current {
		return
	}
	ss.send(schema.SessionUpdate{ConfigOption: &schema.ConfigOptionUpdate{ConfigOptions: ss.configOptions()}})
	if m := ss.modeState(); m != nil {
		ss.send(schema.SessionUpdate{CurrentMode: &schema.CurrentModeUpdate{CurrentModeID: m.CurrentModeID}})
	}
	if len(sur.Commands) > 0 {
		ss.sendCommands(false)
	}
}

// awaitBackend returns the session's agent: the running one, the start in
// flight (warm) or a new start. It tells whether the prompt had to wait.
// A start that failed before this prompt is reported here, once.
func (ss *session) awaitBackend(ctx context.Context) (adapters.Session, bool, error) {
	waited := false
	for {
		ss.mu.Lock()
		b, st, closed := ss.backend, ss.starting, ss.closed
		ss.mu.Unlock()
		switch {
		case closed:
			return nil, waited, adapters.ErrClosed
		case b != nil:
			return b, waited, nil
		}
		if st == nil {
			ss.srv.pool.admit(ss, func() { st = ss.launch(false) })
			if st == nil {
				continue
			}
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
		ss.mu.Lock()
		if ss.starting == st {
			ss.starting = nil // the error is reported now, and only now
		}
		ss.mu.Unlock()
		if st.err != nil && !errors.Is(st.err, errAbandoned) {
			return nil, waited, st.err
		}
	}
}

// warm starts the session's agent ahead of its first prompt, within the
// server's cap on warm agents.
func (ss *session) warm() {
	if ss.srv.pool.limit > 0 {
		ss.srv.pool.admit(ss, func() { ss.launch(true) })
	}
}

// launch starts the agent unless the session has one up or starting, or
// is closed; nil then.
func (ss *session) launch(warm bool) *start {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed || ss.backend != nil || ss.starting != nil {
		return nil
	}
	return ss.launchLocked(warm)
}

// holdsAgent says whether the session has an agent up or starting, and
// whether a turn runs on it.
func (ss *session) holdsAgent() (holds, busy bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.backend != nil || ss.starting != nil, ss.busy
}

// sleep closes an idle session's agent (or abandons its start) to free a
// warm slot or after the idle timeout; the next prompt starts it again,
// resuming the agent's own session where it can.
func (ss *session) sleep(why string) {
	ss.mu.Lock()
	if ss.busy || ss.closed {
		ss.mu.Unlock()
		return
	}
	b, st := ss.backend, ss.starting
	if b != nil {
		ss.noteAgentSessionID()
	}
	ss.backend, ss.starting = nil, nil
	ss.mu.Unlock()
	if st != nil {
		st.cancel()
	}
	if b != nil {
		ss.srv.log.Info().Str("session", ss.id()).Str("why", why).Msg("idle agent closed")
		go func() { _ = b.Close(); ss.editor.releaseAll() }()
	}
}

// idle arms the idle timeout: the agent is closed when no turn started
// before it fires.
func (ss *session) idle() {
	ttl := ss.srv.opts.IdleTimeout
	if ttl <= 0 {
		return
	}
	ss.mu.Lock()
	ss.idleGen++
	gen := ss.idleGen
	ss.mu.Unlock()
	time.AfterFunc(ttl, func() {
		ss.mu.Lock()
		same := ss.idleGen == gen
		ss.mu.Unlock()
		if same {
			ss.sleep("idle timeout")
		}
	})
}

// active cancels the idle timeout and marks the session most recently used.
func (ss *session) active() {
	ss.mu.Lock()
	ss.idleGen++
	ss.mu.Unlock()
	ss.srv.pool.touch(ss)
}

// pool keeps the number of sessions that hold an idle agent within the
// configured cap, closing the least recently used ones first. A session
// whose turn runs is never closed.
type pool struct {
	limit int
	// admitMu makes counting, closing and starting one step, so two
	// sessions opened at once neither both take the last slot nor both
	// free one.
	admitMu sync.Mutex
	mu      sync.Mutex
	lru     []*session // least recently used first
}

// admit makes room for one more agent for ss, then runs launch. It locks
// other sessions, so the caller must not hold ss.mu.
func (p *pool) admit(ss *session, launch func()) {
	p.admitMu.Lock()
	defer p.admitMu.Unlock()
	others := p.touch(ss)
	if p.limit > 0 {
		holders := 1
		var idle []*session
		for i := len(others) - 1; i >= 0; i-- { // newest first
			holds, busy := others[i].holdsAgent()
			if !holds {
				continue
			}
			holders++
			if !busy {
				idle = append(idle, others[i])
			}
		}
		for i := len(idle) - 1; i >= 0 && holders > p.limit; i-- { // oldest first
			idle[i].sleep("warm agent cap")
			holders--
		}
	}
	launch()
}

// touch moves ss to the most recent end and returns the other sessions,
// least recently used first.
func (p *pool) touch(ss *session) []*session {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lru = slices.DeleteFunc(p.lru, func(o *session) bool { return o == ss })
	others := slices.Clone(p.lru)
	p.lru = append(p.lru, ss)
	return others
}

func (p *pool) remove(ss *session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lru = slices.DeleteFunc(p.lru, func(o *session) bool { return o == ss })
}
