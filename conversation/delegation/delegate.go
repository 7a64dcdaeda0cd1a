// Package delegation runs turns on hub's agents for another agent: hub
// mcp's delegate tool, the native loop's, a hub acp session's agent through
// the bridge. Each turn goes through hub's adapters; its permission requests
// are answered by hub's rules and an --approve policy or the parent; its
// sessions close with the delegator, so no process outlives it.
package delegation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/transcript"
)

// Errors a delegate can end in before any turn ran.
var (
	ErrUnknownSession = errors.New("unknown delegate session")
	ErrBusy           = errors.New("the delegate session is answering another prompt")
	// ErrLoop refuses a delegation back to an agent already in the chain.
	ErrLoop = errors.New("delegation loop refused")
)

// Host is what hub's MCP tools run on: a Delegator in this process, or a
// parent hub acp reached through its bridge.
type Host interface {
	Agents() []AgentInfo
	Delegate(ctx context.Context, r Request, progress Progress) (Result, error)
	Continue(ctx context.Context, session, prompt string, timeout time.Duration, progress Progress) (Result, error)
}

var _ Host = (*Delegator)(nil)

// Options configures a Delegator.
type Options struct {
	Registry *adapters.Registry
	// Approve answers what the rules leave open (default read-only).
	Approve conversation.Approve
	Rules   config.PermissionsConfig
	// Grants keeps the durable grants the parent's user keeps (nil: none).
	Grants *permission.Grants
	// Cwd is the default working directory (default: the process's).
	Cwd string
	// Timeout bounds a turn that names none (default 10 minutes).
	Timeout time.Duration
	Log     zerolog.Logger
	// Chain are the agents this delegator works for, the root first; a
	// delegation to one of them is a loop and refused.
	Chain []string
	// Ask, when set, answers what the rules leave open instead of Approve:
	// hub acp puts it to the editor. session is the delegate session the
	// question comes from.
	Ask func(ctx context.Context, session, agent string, q conversation.Question) conversation.Reply
	// Observe, when set, gets every event of every delegate turn, with the
	// delegate session it belongs to.
	Observe func(session, agent string, ev adapters.Event)
	// MCPServers, when set, gives a delegate of agent the MCP servers it
	// may use (hub's own, to delegate further when depth allows).
	MCPServers func(agent string) []adapters.MCPServer
	// Hooks observe the delegates' streams as they observe any CLI
	// agent's (the native loop runs them itself); nil: none.
	Hooks *hooks.Runner
	// AuditDir, when set (config transcripts = true), gets each delegate
	// conversation's audit transcript, as hub run's (the native loop
	// keeps its own).
	AuditDir string
	// Fallback are the agents that take a delegate turn over, by the
	// agent delegated to, when it could not do the work (conversation's
	// fallback rule); ProviderTimeout bounds a failing provider's retries
	// (0: conversation.DefaultProviderTimeout).
	Fallback        map[string][]string
	ProviderTimeout time.Duration
}

// Request is one delegate turn.
type Request struct {
	Agent, Prompt, Cwd, Model, Mode string
	Timeout                         time.Duration
}

// ToolCall is one tool call of a delegate turn, as it ended.
type ToolCall = conversation.ToolCall

// Result is what a delegate turn produced.
type Result struct {
	// Agent is the agent that answered; FellBack says why each agent
	// before it, from the one asked for, handed the turn over.
	Agent    string   `json:"agent"`
	FellBack []string `json:"fellBack,omitempty"`
	// Session continues this delegate conversation (the continue tool).
	Session        string     `json:"session"`
	AgentSessionID string     `json:"agentSessionId,omitempty"`
	StopReason     string     `json:"stopReason"`
	Answer         string     `json:"answer"`
	ToolCalls      []ToolCall `json:"toolCalls"`
	// FilesChanged are relative to the repository's root (a shell
	// command's too); outside a repository, the paths the changing tools
	// named, relative to the workspace when inside it.
	FilesChanged []string        `json:"filesChanged"`
	Usage        *adapters.Usage `json:"usage,omitempty"`
	// Denied are the tool calls hub's rules or the policy refused.
	Denied []string `json:"denied,omitempty"`
	Error  string   `json:"error,omitempty"`
	// Warnings are the hooks that failed on the delegate's turn.
	Warnings []string `json:"warnings,omitempty"`
}

// Progress receives one line per step of a turn (a tool call, its end).
type Progress func(message string)

// Delegator runs delegate turns and keeps their sessions.
type Delegator struct {
	o  Options
	mu sync.Mutex
	// sessions are the live delegate conversations, by Result.Session.
	sessions map[string]*live
	seq      int
	closed   bool
}

type live struct {
	id    string // Result.Session
	agent string
	cwd   string
	sess  adapters.Session
	hooks *hooks.Observer   // nil unless hooks observe this delegate
	audit *transcript.Audit // nil unless transcripts are on and the agent keeps none
	busy  bool
	turn  *turn // the running turn, for its permission decisions
	stop  context.CancelFunc
	tmu   sync.Mutex
}

// New returns a delegator; Close ends every session it started.
func New(o Options) *Delegator {
	o.Approve = cmp.Or(o.Approve, conversation.ApproveReadOnly)
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Cwd == "" {
		o.Cwd, _ = os.Getwd()
	}
	return &Delegator{o: o, sessions: map[string]*live{}}
}

// AgentInfo is one agent that can run here.
type AgentInfo struct {
	Name         string                `json:"name"`
	Capabilities adapters.Capabilities `json:"capabilities"`
	// Description and Backend are a persona's: when to use it, and the
	// agent it runs on.
	Description string `json:"description,omitempty"`
	Backend     string `json:"backend,omitempty"`
}

// Agents are the agents that can run here, with their capabilities.
func (d *Delegator) Agents() []AgentInfo {
	var out []AgentInfo
	for _, n := range d.o.Registry.Names() {
		a, err := d.o.Registry.Get(n)
		if err != nil || adapters.Ready(a) != nil {
			continue
		}
		desc, backend, _ := adapters.Describe(a)
		out = append(out, AgentInfo{Name: n, Capabilities: a.Capabilities(), Description: desc, Backend: backend})
	}
	return out
}

// Delegate starts a session on r.Agent and runs r.Prompt as its first
// turn; while the agent could not do the work, the next agent of its
// fallback list takes the turn over, and its session is the one kept.
func (d *Delegator) Delegate(ctx context.Context, r Request, progress Progress) (Result, error) {
	if slices.Contains(d.o.Chain, r.Agent) {
		return Result{}, fmt.Errorf("%w: %s is already working in this chain (%s); pick another agent", ErrLoop, r.Agent, strings.Join(d.o.Chain, " → "))
	}
	tried := map[string]bool{r.Agent: true}
	for _, n := range d.o.Chain {
		tried[n] = true // a fallback to one would be a loop
	}
	var fellBack []string
	var usage *adapters.Usage
	for agent := r.Agent; ; {
		next := conversation.NextFallback(d.o.Registry, d.o.Fallback[r.Agent], tried, adapters.Ready)
		res, why, err := d.attempt(ctx, agent, r, next != "", progress)
		usage = conversation.AddUsage(usage, res.Usage)
		if why == "" || next == "" || ctx.Err() != nil {
			res.FellBack, res.Usage = fellBack, usage
			if err != nil && fellBack != nil {
				err = fmt.Errorf("%s; then %w", strings.Join(fellBack, "; "), err)
			}
			return res, err
		}
		fellBack, tried[next] = append(fellBack, why), true
		if progress != nil {
			progress(fmt.Sprintf("hub: %s; continuing with %s", why, next))
		}
		agent = next
	}
}

// attempt runs r's first turn on a new session of agent, and says why the
// next agent should take it over ("" when the outcome stands); a session
// handed over is closed.
func (d *Delegator) attempt(ctx context.Context, agent string, r Request, fallback bool, progress Progress) (Result, string, error) {
	l, err := d.start(ctx, agent, r)
	if err != nil {
		return Result{Agent: agent}, conversation.FallbackReason(agent, conversation.ClassifyStart(err), false), err
	}
	id, err := d.keep(l)
	if err != nil {
		l.close()
		return Result{}, "", err
	}
	res, failure, err := d.run(ctx, id, l, r.Prompt, r.Timeout, fallback, progress)
	why := conversation.FallbackReason(agent, conversation.Classify(failure), len(res.ToolCalls) > 0)
	if why != "" && fallback {
		d.drop(id)
	}
	return res, why, err
}

// start starts a delegate session on agent.
func (d *Delegator) start(ctx context.Context, agent string, r Request) (*live, error) {
	a, err := d.o.Registry.Get(agent)
	if err != nil {
		return nil, fmt.Errorf("%w (see the agents tool)", err)
	}
	if err := adapters.Ready(a); err != nil {
		return nil, err
	}
	l := &live{agent: agent, cwd: cmp.Or(r.Cwd, d.o.Cwd)}
	gate, err := conversation.NewGate(conversation.GateOptions{Rules: d.o.Rules, Grants: d.o.Grants, Cwd: l.cwd, Agent: agent,
		Answerer: l.answerer(d.o), Emit: l.decided(d.o)})
	if err != nil {
		return nil, err
	}
	if !a.Capabilities().Hooks {
		l.hooks = d.o.Hooks.Observe(hooks.Input{Cwd: l.cwd, Agent: agent})
	}
	so := adapters.SessionOptions{Cwd: l.cwd, Model: r.Model, Mode: r.Mode, Access: d.o.Approve.Access(),
		Permission: gate.Ask, Rules: &d.o.Rules, CancelGrace: 2 * time.Second}
	if d.o.Ask != nil {
		so.Access = adapters.AccessAskFirst // every side effect reaches whoever answers
	}
	if d.o.MCPServers != nil {
		so.MCPServers = d.o.MCPServers(agent)
	}
	sess, err := a.Start(ctx, so)
	if err != nil {
		l.hooks.Close()
		return nil, fmt.Errorf("start %s: %w", agent, err)
	}
	l.sess = sess
	if d.o.AuditDir != "" && !a.Capabilities().Transcript {
		l.audit = transcript.NewAudit(d.o.AuditDir, transcript.Meta{Agent: agent, Cwd: l.cwd, Model: r.Model}, nil, func(err error) {
			d.o.Log.Warn().Err(err).Str("agent", agent).Msg("the delegate's transcript was not written")
		})
	}
	return l, nil
}

// Continue runs a follow-up turn on a delegate session.
func (d *Delegator) Continue(ctx context.Context, session, prompt string, timeout time.Duration, progress Progress) (Result, error) {
	d.mu.Lock()
	l, ok := d.sessions[session]
	d.mu.Unlock()
	if !ok {
		return Result{}, fmt.Errorf("%w %q", ErrUnknownSession, session)
	}
	res, _, err := d.run(ctx, session, l, prompt, timeout, false, progress)
	return res, err
}

// drop ends the delegate session id.
func (d *Delegator) drop(id string) {
	d.mu.Lock()
	l := d.sessions[id]
	delete(d.sessions, id)
	d.mu.Unlock()
	if l != nil {
		l.close()
	}
}

func (d *Delegator) keep(l *live) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return "", adapters.ErrClosed
	}
	d.seq++
	id := fmt.Sprintf("%s-%d", l.agent, d.seq)
	l.id = id
	d.sessions[id] = l
	return id, nil
}

// CancelTurns cancels every running delegate turn; the sessions stay for
// follow-ups.
func (d *Delegator) CancelTurns() {
	d.mu.Lock()
	all := slices.Collect(maps.Values(d.sessions))
	d.mu.Unlock()
	for _, l := range all {
		l.tmu.Lock()
		if l.stop != nil {
			l.stop()
		}
		l.tmu.Unlock()
	}
}

// Close ends every delegate session.
func (d *Delegator) Close() {
	d.mu.Lock()
	d.closed = true
	all := d.sessions
	d.sessions = map[string]*live{}
	d.mu.Unlock()
	for _, l := range all {
		l.close()
	}
}

// run runs a turn on l; fallback says a next agent waits to take it over
// (its failure is decided early). It says why the turn failed.
func (d *Delegator) run(ctx context.Context, id string, l *live, prompt string, timeout time.Duration, fallback bool, progress Progress) (Result, *adapters.ErrorInfo, error) {
	l.tmu.Lock()
	if l.busy {
		l.tmu.Unlock()
		return Result{}, nil, ErrBusy
	}
	t := &turn{res: Result{Agent: l.agent, Session: id}}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(timeout, d.o.Timeout))
	defer cancel()
	l.busy, l.turn, l.stop = true, t, cancel
	l.tmu.Unlock()
	defer func() {
		l.tmu.Lock()
		l.busy, l.turn, l.stop = false, nil, nil
		l.tmu.Unlock()
	}()
	dg := &conversation.Digest{}
	oc, err := conversation.RunTurn(ctx, conversation.TurnSpec{Agent: l.agent, Session: l.sess, Prompt: adapters.TextPrompt(prompt),
		Hooks: l.hooks, Audit: l.audit, Emit: t.emit(d.o.Observe, dg, progress), Workspace: l.cwd, Digest: dg,
		Watch: fallback, WatchBound: d.o.ProviderTimeout})
	t.res.Warnings, t.res.StopReason = oc.Warnings, string(oc.Stop)
	t.res.AgentSessionID, t.res.Answer, t.res.Usage = dg.AgentSessionID, dg.Answer(), dg.Usage
	t.res.ToolCalls, t.res.FilesChanged = append([]ToolCall{}, dg.ToolCalls...), dg.Files()
	if ctx.Err() != nil {
		oc.Failure = nil // cancelled or timed out: that outcome stands
	}
	var failed *adapters.TurnError
	switch {
	case errors.As(err, &failed):
		t.res.Error = failed.Info.Message
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		// told as such whether the agent's Prompt returned an error or,
		// like the native loop's, ended as cancelled
		t.res.Error = fmt.Sprintf("the delegate turn timed out after %s: %v", cmp.Or(timeout, d.o.Timeout), ctx.Err())
	case ctx.Err() != nil && err != nil:
		t.res.Error = fmt.Sprintf("the delegate turn ended early: %v", ctx.Err())
	case err != nil:
		return t.res, oc.Failure, fmt.Errorf("%s: %w", l.agent, err)
	}
	return t.res, oc.Failure, nil
}

// turn is the running delegate turn, for its permission decisions.
type turn struct{ res Result }

// handle counts a refusal, whatever decided it (the gate, or the agent
// itself in its stream).
func (t *turn) handle(ev adapters.Event) {
	if d := ev.Decision; ev.Type == adapters.EventDecision && d != nil && !d.Allowed {
		t.res.Denied = append(t.res.Denied, fmt.Sprintf("%s: %s", d.Title, d.Reason))
	}
}

// emit shows the turn's events: to whoever observes the delegates, and
// its tool calls as progress lines.
func (t *turn) emit(observe func(session, agent string, ev adapters.Event), dg *conversation.Digest, progress Progress) func(adapters.Event) {
	return func(ev adapters.Event) {
		t.handle(ev)
		if observe != nil {
			observe(t.res.Session, t.res.Agent, ev)
		}
		if progress == nil || ev.Tool == nil {
			return
		}
		tc, ok := dg.Tool(ev.Tool.ID)
		switch {
		case !ok:
		case ev.Type == adapters.EventToolCall:
			progress(t.res.Agent + ": " + tc.Title)
		case ev.Tool.Status == adapters.StatusCompleted || ev.Tool.Status == adapters.StatusFailed:
			progress(fmt.Sprintf("%s: %s %s", t.res.Agent, tc.Title, ev.Tool.Status))
		}
	}
}

// close ends the delegate's session and the hooks observing it.
func (l *live) close() {
	_ = l.sess.Close()
	l.hooks.Close()
	l.audit.Close()
}

// answerer answers what the delegate's rules leave open: the parent
// session (o.Ask) when set, else the approval policy.
func (l *live) answerer(o Options) conversation.Answerer {
	if o.Ask == nil {
		return o.Approve
	}
	return conversation.AnswerFunc(func(ctx context.Context, q conversation.Question) conversation.Reply {
		return o.Ask(ctx, l.id, l.agent, q)
	})
}

// decided hands the gate's decisions to the running turn, as the agent's
// own (the native loop's) arrive in its stream, and to o.Observe.
func (l *live) decided(o Options) func(adapters.Event) {
	return func(ev adapters.Event) {
		l.tmu.Lock()
		t := l.turn
		l.tmu.Unlock()
		l.audit.Event(ev)
		if t != nil {
			t.handle(ev)
		}
		if o.Observe != nil {
			o.Observe(l.id, l.agent, ev)
		}
	}
}
