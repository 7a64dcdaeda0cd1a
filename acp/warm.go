package acp

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/delegation"
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

// setupOf is the setup a session whose record is r wants its agent to
// run with. Caller holds ss.mu when r is ss.rec.
func (ss *session) setupOf(r *Record) conversation.Setup {
	return conversation.Setup{Model: r.Model, Mode: r.Mode, Options: maps.Clone(r.Options), Delegation: ss.srv.delegationOn(r.Delegation),
		MCPServers: ss.mcp, AddDirs: slices.Clone(r.AddDirs)}
}

// newAgent is the session's agent: started with the setup its record
// wants (startAgent), within the server's cap on warm agents.
func (ss *session) newAgent() *conversation.Agent {
	return &conversation.Agent{Start: ss.startAgent, Started: ss.started, Now: ss.srv.opts.Now, Starts: &ss.srv.starts,
		Want: func() conversation.Setup { ss.mu.Lock(); defer ss.mu.Unlock(); return ss.setupOf(ss.rec) },
		Warm: ss.srv.warm, Nap: ss.sleep,
		Context: func() context.Context { return trace.Begin(ss.srv.ctx, "start", ss.rec.SessionID) },
		Log:     ss.srv.log.With().Str("session", ss.rec.SessionID).Logger()}
}

// startAgent starts the session's agent with the setup its record wants, and
// returns that setup: resuming (or forking) the agent's own session where it
// can, else afresh, briefed when handover says so (conversation.PlanStart). A
// start abandoned meanwhile (the session switched agent or slept) changes nothing.
func (ss *session) startAgent(ctx context.Context) (adapters.Session, conversation.Setup, error) {
	ss.mu.Lock()
	name := ss.rec.Agent
	a, err := ss.runnersLocked().Get(name)
	if err != nil || ctx.Err() != nil {
		ss.mu.Unlock()
		return nil, conversation.Setup{}, cmp.Or(err, ctx.Err())
	}
	setup := ss.setupOf(ss.rec)
	opts := adapters.SessionOptions{Cwd: ss.rec.Cwd, AddDirs: slices.Clone(setup.AddDirs), MCPServers: conversation.MCPFor(a.Capabilities(), ss.mcp, ss.srv.log.With().Str("session", ss.rec.SessionID).Str("agent", a.Name()).Logger()), Model: setup.Model, Mode: setup.Mode,
		Options: maps.Clone(setup.Options), Editor: ss.editor, CancelGrace: ss.srv.opts.CancelGrace, Ask: ss.editor.ask,
		Hooks: ss.set.HookConfig, Env: delegation.ChainEnv(a),
		Permission: func(ctx context.Context, p *adapters.PermissionRequest) adapters.PermissionDecision { // the session's gate decides
			return ss.gate.AskAs(ctx, p, ss.agentName())
		}}
	caps := a.Capabilities()
	id, fork := ss.rec.AgentSessionID, false
	// Unbriefed: a fresh start's briefing never reached it, so its session holds none of it.
	if id == "" || ss.rec.Unbriefed || !caps.Resume {
		id, fork = ss.rec.ForkOf, true // a fork: the agent continues a copy of the source's session
	}
	since := ss.rec.Since
	ss.mu.Unlock()
	ss.giveDelegation(a, setup, &opts)
	all, missed := ss.briefing(0), "" // since 0: a resume has seen all of it (or a copy)
	if since > 0 {
		missed = ss.briefing(since)
	}
	plan := conversation.PlanStart(caps, id, fork, missed, all)
	plan.Apply(&opts)
	b, fresh, err := ss.agent.StartResuming(ctx, a, opts)
	if err != nil {
		return nil, setup, adapters.NotStarted(name, err)
	}
	if fresh && plan.ResumeID != "" {
		plan.ResumeID, plan.Lead = "", all // it lost its session: all of it
	}
	ss.mu.Lock()
	if ctx.Err() == nil {
		ss.rec.ForkOf, ss.plan, ss.rec.Unbriefed = "", plan, plan.Briefs() && plan.ResumeID == "" // its own copy (or, when forking failed, a briefed start) from now on
	}
	ss.mu.Unlock()
	return b, setup, nil
}

// giveDelegation gives the agent hub's delegate tool when the setup says so:
// its own tool where it has one, else hub's MCP server (a stdio one).
func (ss *session) giveDelegation(a adapters.Adapter, setup conversation.Setup, opts *adapters.SessionOptions) {
	switch {
	case !setup.Delegation || !personas.MayDelegate(a):
	case a.Capabilities().DelegateTool:
		opts.Delegate, opts.DelegateAgents = ss.delegateFunc(a)
	case !a.Capabilities().MCP:
		ss.srv.log.Warn().Str("session", ss.id()).Str("agent", a.Name()).Msg("delegation is on, but this agent takes no stdio MCP servers")
	default:
		opts.MCPServers = append(slices.Clone(opts.MCPServers), ss.delegationEntry([]adapters.Adapter{a})...)
	}
}

// started logs the start, arms the idle timer and fetches what the agent
// offers, which the editor then sees before any prompt.
func (ss *session) started(ctx context.Context, b adapters.Session, warm bool, took time.Duration) {
	trace.Mark(ctx, trace.Started)
	ss.srv.log.Info().Str("session", ss.id()).Str("agent", ss.agentName()).Bool("warm", warm).Dur("took", took).Msg("agent up")
	ss.agent.Rest()
	if sf, ok := b.(adapters.Surfacer); ok {
		go ss.fetchSurface(sf, b)
	}
}

// fetchSurface asks a started agent for its commands and options and sends
// them as updates, unless the session moved on to another agent session.
func (ss *session) fetchSurface(sf adapters.Surfacer, b adapters.Session) {
	ctx, cancel := context.WithTimeout(ss.srv.ctx, surfaceWait)
	defer cancel()
	sur, err := sf.Surface(ctx)
	if err != nil {
		ss.srv.log.Debug().Err(err).Str("session", ss.id()).Msg("agent reported no commands or options")
		return
	}
	ss.mu.Lock()
	current := ss.agent.Current() == b && !ss.closed
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

// sleep closes an idle session's agent (or abandons its start) to free a warm
// slot or after the idle timeout (conversation.Warm), unless a turn runs or
// waits; the next prompt starts it again.
func (ss *session) sleep(why string) bool {
	var b adapters.Session
	slept := ss.turns.Idle(func() bool {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		if ss.closed {
			return false
		}
		b = ss.agent.Sleep()
		ss.noteAgentSessionID(b)
		return true
	})
	if b != nil {
		ss.srv.log.Info().Str("session", ss.id()).Str("why", why).Msg("idle agent closed")
		go func() { _ = b.Close(); ss.editor.releaseAll() }()
	}
	return slept
}
