// Package delegation runs turns on hub's agents for another agent: hub
// mcp's delegate tool, the native loop's, a hub acp session's agent through
// the bridge. Permission requests are answered by hub's rules and an
// --approve policy or the parent; no delegate process outlives the delegator.
package delegation

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fspath"
	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/transcript"
	"github.com/hubdev/hub/personas"
)

var (
	ErrUnknownSession = errors.New("unknown delegate session")
	ErrBusy           = errors.New("the delegate session is answering another prompt")
	ErrLoop           = errors.New("delegation loop refused")
	// ErrRefused refuses a delegate request that would grant the delegate
	// more than the user set up (see settle), or run more than MaxTurns.
	ErrRefused = errors.New("delegate refused")
)

// Host is what hub's MCP tools run on: a Delegator in this process, or a
// parent hub acp reached through its bridge.
type Host interface {
	Agents() []AgentInfo
	Delegate(ctx context.Context, r Request, progress Progress) (Result, error)
}

var _ Host = (*Delegator)(nil)

type Options struct {
	Registry *adapters.Registry
	Approve  conversation.Approve // default read-only
	Rules    config.PermissionsConfig
	Grants   *permission.Grants // the durable grants the parent's user keeps (nil: none)
	Cwd      string             // default: the process's
	Timeout  time.Duration      // of a turn that names none (default 10 minutes)
	Log      zerolog.Logger
	// Chain are the agents this delegator works for as they run, the root
	// first: a persona's rules and mode bind its delegates, and a
	// delegation to one of them is a loop.
	Chain []adapters.Adapter
	// Ask, when set, answers what the rules leave open instead of Approve
	// (hub acp puts it to the editor).
	Ask        func(ctx context.Context, session, agent string, q conversation.Question) conversation.Reply
	Observe    func(session, agent string, ev adapters.Event) // gets every event of every delegate turn
	MCPServers func(a adapters.Adapter) []adapters.MCPServer  // hub's own, to delegate further when depth allows
	Hooks      *hooks.Runner
	AuditDir   string // gets each delegate conversation's audit transcript, "": none
	// Fallback are the agents that take a delegate turn over, by the agent
	// delegated to; ProviderTimeout 0 is conversation.DefaultProviderTimeout.
	Fallback        map[string][]string
	ProviderTimeout time.Duration
	// Records keeps each delegate conversation (RecordsIn), so a continue
	// goes on after hub restarted; "": in memory only.
	Records string
}

// Request is one delegate turn: a follow-up of the delegate conversation
// Session, whose agent, directory, model and mode it keeps, or the first
// of a new one. It is adapters.DelegateRequest, field for field.
type Request struct {
	Agent, Prompt, Session, Cwd, Model, Mode string
	Timeout                                  time.Duration
}

type Result struct {
	Agent          string                  `json:"agent"`              // the agent that answered
	FellBack       []string                `json:"fellBack,omitempty"` // why each agent before it handed the turn over
	Session        string                  `json:"session"`            // continues this delegate conversation
	AgentSessionID string                  `json:"agentSessionId,omitempty"`
	StopReason     string                  `json:"stopReason"`
	Answer         string                  `json:"answer"`
	ToolCalls      []conversation.ToolCall `json:"toolCalls"`
	FilesChanged   []string                `json:"filesChanged"` // see conversation.Digest.FilesChanged
	Usage          *adapters.Usage         `json:"usage,omitempty"`
	Denied         []string                `json:"denied,omitempty"`
	Error          string                  `json:"error,omitempty"`
	Warnings       []string                `json:"warnings,omitempty"` // the hooks that failed on the turn
	// Briefed says why the agent, whose own session could not go on, took
	// the turn afresh, briefed on the conversation (conversation.ResumeLost).
	Briefed string `json:"briefed,omitempty"`
}

// Progress receives one line per step of a turn (a tool call, its end).
type Progress func(message string)

type Delegator struct {
	o        Options
	mu       sync.Mutex
	sessions map[string]*live // by Result.Session
	turns    map[*context.CancelFunc]bool
	closed   bool
}

type live struct {
	id                      string // Result.Session
	agent, cwd, model, mode string
	persona                 string // the persona agent runs as, having taken its turn over (conversation.RunsAs)
	resume                  string // read from its record: the agent's own session, to resume natively
	sess                    adapters.Session
	hooks                   *hooks.Observer   // nil unless hooks observe this delegate
	audit                   *transcript.Audit // nil unless transcripts are on and the agent keeps none
	tmu                     sync.Mutex        // guards brief, crashes and what save writes
	busy                    atomic.Bool
	gone                    atomic.Bool // its agent crashed or ignored a cancel: RunTurn closed it
	crashes                 conversation.Crashes
	gate                    *conversation.Gate
	// brief is the conversation so far, for an agent that takes it over;
	// lead goes ahead of the prompts until one reached the agent. The run
	// that has l busy reads them.
	brief handover.Brief
	lead  string
	// agentSession, unbriefed (lead was pending) and created go to its
	// record.
	agentSession string
	unbriefed    bool
	created      time.Time
	// resumed: sess resumed the agent's own session and took no prompt
	// yet; fresh starts the agent afresh, briefed on brief (and its lead).
	resumed bool
	fresh   func(ctx context.Context) (adapters.Session, string, error)
}

func New(o Options) *Delegator {
	o.Approve = cmp.Or(o.Approve, conversation.ApproveReadOnly)
	o.Timeout = cmp.Or(max(o.Timeout, 0), 10*time.Minute)
	if o.Cwd == "" {
		o.Cwd, _ = os.Getwd()
	}
	return &Delegator{o: o, sessions: map[string]*live{}, turns: map[*context.CancelFunc]bool{}}
}

type AgentInfo struct {
	Name         string                `json:"name"`
	Capabilities adapters.Capabilities `json:"capabilities"`
	// Description and Backend are a persona's: when to use it, and the
	// agent it runs on.
	Description string `json:"description,omitempty"`
	Backend     string `json:"backend,omitempty"`
}

func (d *Delegator) Agents() []AgentInfo {
	var out []AgentInfo
	for _, n := range d.o.Registry.Names() {
		if a, err := d.o.Registry.Get(n); err == nil && adapters.Ready(a) == nil {
			desc, backend, _ := adapters.Describe(a)
			out = append(out, AgentInfo{Name: n, Capabilities: a.Capabilities(), Description: desc, Backend: backend})
		}
	}
	return out
}

func (d *Delegator) Delegate(ctx context.Context, r Request, progress Progress) (Result, error) {
	var from *live
	var err error
	switch {
	case r.Session != "":
		if from, err = d.session(r.Session); err != nil {
			return Result{}, err
		}
		r = Request{Agent: from.agent, Prompt: r.Prompt, Cwd: from.cwd, Model: from.model, Mode: from.mode, Timeout: r.Timeout}
	case slices.Contains(names(d.o.Chain), r.Agent):
		return Result{}, fmt.Errorf("%w: %s is already working in this chain (%s); pick another agent", ErrLoop, r.Agent, strings.Join(names(d.o.Chain), " → "))
	default:
		if r.Cwd, err = d.settle(r); err != nil {
			return Result{}, err
		}
	}
	return d.converse(ctx, from, r, progress)
}

// settle returns r's working directory, the workspace or the real path of
// one inside it, or ErrRefused: the calling agent writes r and may not take
// the delegate beyond what the user set up (an agent its persona does not
// name, a directory outside the workspace, a mode that skips the gate, a
// model a CLI would read as an option).
func (d *Delegator) settle(r Request) (string, error) {
	if n := len(d.o.Chain); n > 0 {
		if a := d.o.Chain[n-1]; a != nil {
			if err := personas.DelegatesTo(a, adapters.DelegateRequest(r)); err != nil {
				return "", fmt.Errorf("%w: %w", ErrRefused, err)
			}
		}
	}
	switch {
	case !config.Narrows(r.Mode, "default"): // a mode that accepts edits or bypasses permissions skips the gate
		return "", fmt.Errorf("%w: mode %q would let the delegate act without hub's permission requests; leave mode out, or name default, plan or read-only", ErrRefused, r.Mode)
	case strings.HasPrefix(r.Model, "-") || strings.ContainsFunc(r.Model, unicode.IsControl):
		return "", fmt.Errorf("%w: model %q is no model name (a CLI would read it as an option); leave model out, or name one the agent lists", ErrRefused, r.Model)
	case r.Cwd == "":
		return d.o.Cwd, nil
	}
	if cwd, ok := d.inside(r.Cwd); ok {
		return cwd, nil
	}
	return "", fmt.Errorf("%w: cwd %q is not a directory inside the workspace %s; leave cwd out, or name one inside it", ErrRefused, r.Cwd, d.o.Cwd)
}

// inside is the real path of directory p when it is in the workspace.
func (d *Delegator) inside(p string) (string, bool) {
	root, err := fspath.RealPath(d.o.Cwd)
	if err == nil {
		var cwd string
		cwd, err = fspath.Resolve(runtime.GOOS, root, p)
		if fi, serr := os.Stat(cwd); err == nil && serr == nil && fi.IsDir() {
			return cwd, true // links resolved: one swapped in later takes the delegate nowhere else
		}
	}
	return "", false
}

// converse runs r's turn on the delegate conversation from, or on a new
// one (from nil). A fallback agent takes the conversation over, briefed,
// and its follow-ups go to it.
func (d *Delegator) converse(ctx context.Context, from *live, r Request, progress Progress) (Result, error) {
	ctx, end, err := d.track(ctx)
	if err != nil {
		return Result{}, err
	}
	defer end()
	release, err := d.claim(from)
	if err != nil {
		return Result{}, err
	}
	defer release()
	var res Result
	var fellBack []string
	var usage *adapters.Usage
	l := from
	if from != nil && from.gone.Load() { // closed: a new session of its agent takes the conversation over, replacing it (keep)
		if !from.busy.CompareAndSwap(false, true) {
			return Result{}, ErrBusy
		}
		defer from.busy.Store(false) // no new session started: a next continue tries again
		if err := from.crashLoop(); err != nil {
			return Result{Agent: from.agent, Session: from.id}, fmt.Errorf("%s: %w", from.agent, err)
		}
		l = nil
	}
	first := r.Agent // the persona an agent that took its turn over runs as, with its fallbacks
	if from != nil {
		first = cmp.Or(from.persona, r.Agent)
	}
	reg := conversation.FallbackAgents(d.o.Registry, first, append([]string{r.Agent}, d.o.Fallback[first]...))
	walk := conversation.Fallbacks{Registry: reg, List: d.o.Fallback[first], Ready: func(a adapters.Adapter) error {
		if slices.Contains(names(d.o.Chain), a.Name()) {
			return ErrLoop // a fallback to one would be a loop
		}
		return adapters.Ready(a)
	}}
	why := walk.Walk(ctx, r.Agent, func(agent string, watch bool) (c conversation.Class, toolStarted bool) {
		r.Agent, res = agent, Result{Agent: agent}
		if l == nil { // a new session, or one that takes from's conversation over
			if l, err = d.start(ctx, reg, r, from); err != nil {
				return conversation.ClassifyStart(err), false
			}
			if err = d.keep(l); err != nil {
				l.close()
				return conversation.ClassNone, false
			}
		}
		res, c, toolStarted, err = d.run(ctx, l, r, watch, progress)
		l, usage = nil, conversation.AddUsage(usage, res.Usage)
		return c, toolStarted
	}, func(_, next, why string) {
		if progress != nil {
			progress("hub: " + conversation.HandoverLine(why, next))
		}
		fellBack = append(fellBack, why)
		d.drop(res.Session)
	})
	if ctx.Err() != nil && (why != "" || res.StopReason == "") { // before the next agent took the turn, or as it started
		res.StopReason, res.Error, err = string(adapters.StopCancelled), fmt.Sprintf("the delegate turn ended early: %v", ctx.Err()), nil
	}
	res.FellBack, res.Usage = fellBack, usage
	d.save(res.Session)
	if err != nil && fellBack != nil {
		err = fmt.Errorf("%s; then %w", strings.Join(fellBack, "; "), err)
	}
	return res, err
}

// start starts a delegate session on r.Agent of reg; one that takes from's
// conversation over keeps its id and is briefed on it.
func (d *Delegator) start(ctx context.Context, reg *adapters.Registry, r Request, from *live) (*live, error) {
	a, err := reg.Get(r.Agent)
	if err != nil {
		return nil, fmt.Errorf("%w (see the agents tool)", err)
	}
	if err := cmp.Or(ctx.Err(), adapters.Ready(a)); err != nil {
		return nil, err
	}
	l := &live{agent: r.Agent, cwd: cmp.Or(r.Cwd, d.o.Cwd), model: r.Model, mode: r.Mode, persona: conversation.RunsAs(a)}
	if from != nil {
		from.tmu.Lock()
		l.id, l.brief, l.crashes, l.created = from.id, from.brief, from.crashes, from.created
		from.tmu.Unlock()
	}
	l.brief.Cwd = l.cwd
	var resume string
	if from != nil && from.agent == r.Agent {
		resume = from.resume
	}
	plan := conversation.PlanStart(a.Capabilities(), resume, false, "", handover.Render(l.brief))
	so := adapters.SessionOptions{Cwd: l.cwd, Model: l.model, Mode: l.mode, Access: d.o.Approve.Access(), CancelGrace: 2 * time.Second,
		Env: ChainEnv(append(slices.Clip(d.o.Chain), a)...)}
	plan.Apply(&so)
	answer := conversation.Answerer(d.o.Approve)
	if d.o.Ask != nil {
		so.Access = adapters.AccessAskFirst // every side effect reaches whoever answers
		answer = conversation.AnswerFunc(func(ctx context.Context, q conversation.Question) conversation.Reply {
			return d.o.Ask(ctx, l.id, l.agent, q)
		})
	}
	if d.o.MCPServers != nil {
		so.MCPServers = conversation.MCPFor(a.Capabilities(), d.o.MCPServers(a), d.o.Log.With().Str("agent", l.agent).Logger())
	}
	if l.gate, err = conversation.NewGate(conversation.GateOptions{Rules: d.o.Rules, Grants: d.o.Grants, Cwd: l.cwd, Agent: l.agent, Answerer: answer}); err != nil {
		return nil, err
	}
	so.Permission = l.gate.Ask
	if err := personas.Delegated(d.o.Chain, a, &so); err != nil {
		return nil, err
	}
	l.hooks, l.audit = conversation.Observers(a.Capabilities(), d.o.Hooks, d.o.AuditDir, transcript.Meta{Agent: r.Agent, Cwd: l.cwd, Model: r.Model}, func(err error) {
		d.o.Log.Warn().Err(err).Str("agent", r.Agent).Msg("the delegate's transcript was not written")
	})
	fresh := so
	l.fresh = func(ctx context.Context) (adapters.Session, string, error) {
		l.tmu.Lock()
		p := conversation.PlanStart(a.Capabilities(), "", false, "", handover.Render(l.brief))
		l.tmu.Unlock()
		so := fresh
		p.Apply(&so)
		sess, err := a.Start(ctx, so)
		return sess, p.Lead, err
	}
	sess, err := a.Start(ctx, so)
	if err != nil && so.ResumeID != "" && ctx.Err() == nil && !errors.Is(err, adapters.ErrNotInstalled) && !errors.Is(err, adapters.ErrNotAuthenticated) &&
		!errors.Is(err, adapters.ErrBadCwd) {
		d.o.Log.Warn().Err(err).Str("agent", r.Agent).Msg("resume failed; starting the delegate afresh, briefed")
		so.ResumeID = ""
		sess, plan.Lead, err = l.fresh(ctx)
	}
	if err == nil && ctx.Err() != nil { // cancelled while it started
		_ = sess.Close()
		err = ctx.Err()
	}
	if err != nil {
		l.hooks.Close()
		return nil, adapters.NotStarted(r.Agent, err)
	}
	l.sess, l.lead, l.agentSession, l.resumed = sess, plan.Lead, so.ResumeID, so.ResumeID != ""
	return l, nil
}

// rebrief replaces l's session, whose resume ResumeLost found gone, with a
// fresh start briefed on l's conversation, unless l was dropped meanwhile.
func (d *Delegator) rebrief(ctx context.Context, l *live) error {
	sess, lead, err := l.fresh(ctx)
	if err != nil {
		return err
	}
	l.tmu.Lock()
	old := l.sess
	l.sess, l.lead = sess, lead
	l.tmu.Unlock()
	_ = old.Close()
	d.mu.Lock()
	kept := !d.closed && d.sessions[l.id] == l
	d.mu.Unlock()
	if !kept { // closed while it started: nothing else closes sess
		_ = sess.Close()
		return adapters.ErrClosed
	}
	return nil
}

// MaxTurns bounds the delegate turns running at once: a calling agent that
// fans out would start a CLI process for each.
const MaxTurns = 8

// track makes ctx end with CancelTurns too, until the func returned runs.
func (d *Delegator) track(ctx context.Context) (context.Context, func(), error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.turns) >= MaxTurns {
		return nil, nil, fmt.Errorf("%w: %d delegate turns are running already; wait for one to end", ErrRefused, MaxTurns)
	}
	ctx, cancel := context.WithCancel(ctx)
	d.turns[&cancel] = true
	return ctx, func() {
		d.mu.Lock()
		delete(d.turns, &cancel)
		d.mu.Unlock()
		cancel()
	}, nil
}

func (d *Delegator) drop(id string) {
	d.mu.Lock()
	l := d.sessions[id]
	delete(d.sessions, id)
	d.mu.Unlock()
	if l != nil {
		l.close()
	}
}

// keep adds l, replacing (closing) a closed session of its id; a new one
// gets an id of its own, never one a delegator before a restart gave.
func (d *Delegator) keep(l *live) error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return adapters.ErrClosed
	}
	if l.id == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		l.id = "d-" + hex.EncodeToString(b)
	}
	old := d.sessions[l.id]
	d.sessions[l.id] = l
	d.mu.Unlock()
	if old != nil && old != l {
		old.close()
	}
	return nil
}

// CancelTurns cancels every running delegate turn; the sessions stay.
func (d *Delegator) CancelTurns() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for cancel := range d.turns {
		(*cancel)()
	}
}

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

// run runs r's turn on l; fallback says a next agent waits to take it
// over. Unless one does, the turn joins l's conversation.
func (d *Delegator) run(ctx context.Context, l *live, r Request, fallback bool, progress Progress) (Result, conversation.Class, bool, error) {
	if !l.busy.CompareAndSwap(false, true) {
		return Result{}, conversation.ClassNone, false, ErrBusy
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(r.Timeout, d.o.Timeout))
	defer cancel()
	dg, oc, err := l.turn(ctx, d.o, r, fallback, progress)
	briefed := ""
	if l.resumed && conversation.ResumeLost(ctx, oc) && d.rebrief(ctx, l) == nil {
		briefed = conversation.BriefedLine(l.agent, oc.Failure)
		if progress != nil {
			progress("hub: " + briefed)
		}
		dg, oc, err = l.turn(ctx, d.o, r, fallback, progress)
	}
	l.resumed = false
	res := Result{Agent: l.agent, Session: l.id, AgentSessionID: dg.AgentSessionID, StopReason: string(oc.Stop), Answer: dg.Answer(),
		ToolCalls: append([]conversation.ToolCall{}, dg.ToolCalls...), FilesChanged: dg.Files(), Usage: dg.Usage, Warnings: oc.Warnings, Briefed: briefed}
	for _, c := range dg.Refused {
		res.Denied = append(res.Denied, c.Title+": "+c.Reason)
	}
	class, toolStarted := conversation.ClassNone, len(dg.ToolCalls) > 0
	if ctx.Err() == nil { // else cancelled or timed out: that outcome stands
		class = conversation.Classify(oc.Failure)
	}
	l.tmu.Lock()
	switch {
	case oc.Failure != nil && oc.Failure.Code == adapters.CodeHook: // it reached no agent: not in the record
	case !fallback || conversation.FallbackReason(l.agent, class, toolStarted) == "":
		dg.AddTo(&l.brief, r.Prompt)
	}
	if oc.Crashed {
		l.crashes.Add(time.Now())
	}
	l.agentSession, l.unbriefed = cmp.Or(dg.AgentSessionID, l.sess.ID(), l.agentSession), l.lead != ""
	l.tmu.Unlock()
	l.gone.Store(oc.Crashed || oc.Ending == conversation.Stuck)
	l.busy.Store(false) // after the brief holds the turn: a follow-up reads it
	switch {
	case oc.Ending == conversation.Failed: // the agent's error, as the Outcome tells it
		res.Error = oc.Failure.Message
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Error = fmt.Sprintf("the delegate turn timed out after %s: %v", cmp.Or(r.Timeout, d.o.Timeout), ctx.Err())
	case ctx.Err() != nil && err != nil:
		res.Error = fmt.Sprintf("the delegate turn ended early: %v", ctx.Err())
	case err != nil:
		return res, class, toolStarted, fmt.Errorf("%s: %w", l.agent, err)
	}
	return res, class, toolStarted, nil
}

func (l *live) turn(ctx context.Context, o Options, r Request, fallback bool, progress Progress) (*conversation.Digest, conversation.Outcome, error) {
	dg := &conversation.Digest{}
	oc, err := conversation.RunTurn(ctx, conversation.TurnSpec{Agent: l.agent, Session: l.sess, Prompt: adapters.TextPrompt(r.Prompt), Lead: func() string { return l.lead },
		Reached: func() { l.lead = "" }, Hooks: l.hooks, Audit: l.audit, Gate: l.gate, Emit: l.emit(o, dg, progress), Workspace: l.cwd, Digest: dg,
		Watch: fallback, WatchBound: o.ProviderTimeout})
	return dg, oc, err
}

func (l *live) emit(o Options, dg *conversation.Digest, progress Progress) func(adapters.Event) {
	return func(ev adapters.Event) {
		if o.Observe != nil {
			o.Observe(l.id, l.agent, ev)
		}
		if progress == nil || ev.Tool == nil {
			return
		}
		tc, ok := dg.Tool(ev.Tool.ID)
		switch {
		case !ok:
		case ev.Type == adapters.EventToolCall:
			progress(l.agent + ": " + tc.Title)
		case ev.Tool.Status == adapters.StatusCompleted || ev.Tool.Status == adapters.StatusFailed:
			progress(fmt.Sprintf("%s: %s %s", l.agent, tc.Title, ev.Tool.Status))
		}
	}
}

func (l *live) crashLoop() error {
	l.tmu.Lock()
	defer l.tmu.Unlock()
	return l.crashes.Loop(time.Now())
}

func (l *live) close() {
	l.tmu.Lock()
	sess := l.sess // rebrief may replace it
	l.tmu.Unlock()
	if sess != nil { // nil: read from its record, not started
		_ = sess.Close()
	}
	l.hooks.Close()
	l.audit.Close()
}
