package conversation

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

// What decided, besides permission's By* (the hard deny list, a rule, an
// "always" answer, a grant, a skill, --allow-tool).
const (
	ByHub     = "hub"       // the request itself cannot be answered (options sharing an id)
	ByUser    = "user"      // the editor's user, or the parent session's
	ByApprove = "--approve" // hub run's and hub mcp's policy
)

type Question struct {
	Request *adapters.PermissionRequest
	Call    permission.Request // the call as hub reads it (permission.RequestOf)
	Must    bool               // only a person who sees the call may allow it (a secret read)
	Why     string
	Always  bool   // whether an "always" answer may cover the call
	Grant   string // the durable grant an "always allow" could keep, "" when none
	Keep    func() (permission.Grant, error)
}

type Reply struct {
	Decision   adapters.PermissionDecision
	By, Reason string
	Then       func() // runs only once the decision is recorded within its turn
}

// Answerer answers what the rules leave open: the editor in hub acp,
// --approve in hub run, the parent session for delegates.
type Answerer interface {
	Answer(ctx context.Context, q Question) Reply
}

type AnswerFunc func(ctx context.Context, q Question) Reply

func (f AnswerFunc) Answer(ctx context.Context, q Question) Reply { return f(ctx, q) }

type GateOptions struct {
	Rules    config.PermissionsConfig
	Grants   *permission.Grants // keeps durable grants (nil, or a session grant scope: none)
	Cwd      string             // the session's root: relative paths' base, the grants' project
	Agent    string             // the agent asking, for durable grants
	Answerer Answerer
}

// Gate is a session's one permission gate: its rules, one "always" memory
// and one grant store, the README's evaluation order, and the Answerer for
// what they leave open. Each decision is an event of the running turn.
type Gate struct {
	rules *permission.Service
	o     GateOptions
	mu    sync.RWMutex          // read-held while a decision is kept and emitted
	turn  *func(adapters.Event) // the running turn's events (RunTurn), under mu
}

func NewGate(o GateOptions) (*Gate, error) {
	rules, err := permission.New(o.Rules)
	if err != nil {
		return nil, err
	}
	if o.Grants != nil && o.Rules.GrantScope() != config.GrantsSession {
		rules.UseGrants(permission.GrantPolicy{Store: o.Grants, Project: config.ProjectRoot(o.Cwd),
			UserWide: o.Rules.GrantScope() == config.GrantsUser, Lifetime: o.Rules.GrantLifetime()})
	}
	o.Answerer = cmp.Or(o.Answerer, Answerer(ApproveNone))
	return &Gate{rules: rules, o: o}, nil
}

func (g *Gate) Rules() *permission.Service { return g.rules }

// Ask is the session's adapters.PermissionFunc.
func (g *Gate) Ask(ctx context.Context, p *adapters.PermissionRequest) adapters.PermissionDecision {
	return g.AskAs(ctx, p, g.o.Agent)
}

// AskAs is Ask for a call of agent. Outside a turn it cancels the call: a
// decision no turn records would be lost.
func (g *Gate) AskAs(ctx context.Context, p *adapters.PermissionRequest, agent string) adapters.PermissionDecision {
	g.mu.RLock()
	emit := g.turn
	g.mu.RUnlock()
	if emit == nil {
		return adapters.PermissionDecision{Cancelled: true}
	}
	r, keep := g.decide(ctx, p, agent)
	if r.Decision.Cancelled || r.By == "" { // the agent's default: no decision taken
		return r.Decision
	}
	// Kept and recorded within its turn, or not at all: the turn's end waits.
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.turn != emit {
		return adapters.PermissionDecision{Cancelled: true}
	}
	keep()
	d := r.Decision
	d.By, d.Reason = r.By, r.Reason
	(*emit)(adapters.Event{Type: adapters.EventDecision, Permission: p, Decision: &adapters.Decision{
		ToolID: p.Tool.ID, Title: ToolTitle(p.Tool), Kind: p.Tool.Kind,
		Allowed: d.Allowed(), By: r.By, Reason: r.Reason, Answer: &d}})
	if o, ok := p.OptionFor(adapters.AllowOnce); ok && d.Kind == adapters.AllowAlways {
		// The gate keeps the "always", scoped to what the user saw; the
		// agent's own (gemini's "Always Allow git", codex's session
		// approval) would skip the gate and hub's deny rules.
		return adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind, By: d.By, Reason: d.Reason}
	}
	return d
}

// begin makes emit the running turn's events until end, which waits for
// a decision being recorded.
func (g *Gate) begin(emit func(adapters.Event)) (end func()) {
	if g == nil {
		return func() {}
	}
	g.mu.Lock()
	g.turn = &emit
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		g.turn = nil
		g.mu.Unlock()
	}
}

// decide applies the evaluation order: a request hub cannot answer, the
// rules, then the Answerer, whose "always" and Then keep runs.
func (g *Gate) decide(ctx context.Context, p *adapters.PermissionRequest, agent string) (r Reply, keep func()) {
	keep = func() {}
	if why := permission.OptionsProblem(p.Options); why != "" {
		return Reply{Decision: adapters.PermissionDecision{Kind: adapters.RejectOnce}, By: ByHub, Reason: why}, keep
	}
	req := permission.RequestOf(p.Tool, g.o.Cwd)
	req.Agent, req.Must = agent, p.MustAsk
	v, decided := g.rules.Judge(ctx, p, req)
	switch {
	case ctx.Err() != nil:
		return Reply{Decision: adapters.PermissionDecision{Cancelled: true}}, keep
	case decided && v.Decision == permission.Deny:
		return Reply{Decision: Reject(p), By: v.By, Reason: v.Reason}, keep
	case decided:
		return Reply{Decision: Allow(p), By: v.By, Reason: v.Reason}, keep
	}
	q := Question{Request: p, Call: req, Must: v.Must, Why: v.Reason, Always: permission.Coverable(req),
		Keep: func() (permission.Grant, error) { return g.rules.Keep(req) }}
	q.Grant, _ = g.rules.GrantOffer(req)
	if r = g.o.Answerer.Answer(ctx, q); ctx.Err() != nil { // asked of nobody any more: a late answer decides nothing
		return Reply{Decision: adapters.PermissionDecision{Cancelled: true}}, keep
	}
	return r, func() {
		g.rules.Remember(req, r.Decision.Kind)
		if r.Then != nil {
			r.Then()
		}
	}
}

func Allow(p *adapters.PermissionRequest) adapters.PermissionDecision {
	return pick(p, adapters.AllowOnce, adapters.AllowAlways)
}

func Reject(p *adapters.PermissionRequest) adapters.PermissionDecision {
	return pick(p, adapters.RejectOnce, adapters.RejectAlways)
}

func pick(p *adapters.PermissionRequest, kinds ...adapters.PermissionOptionKind) adapters.PermissionDecision {
	for _, k := range kinds {
		if o, ok := p.OptionFor(k); ok {
			return adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind}
		}
	}
	return adapters.PermissionDecision{Kind: kinds[0]}
}

// Approve is the fixed policy that answers permission requests where
// nobody can (hub run, hub mcp).
type Approve string

const (
	ApproveAll      Approve = "all"       // allow everything
	ApproveReadOnly Approve = "read-only" // allow read, search, fetch, think
	ApproveNone     Approve = "none"      // reject everything
)

func (a Approve) Valid() bool { return a == ApproveAll || a == ApproveReadOnly || a == ApproveNone }

// Answer judges the kind hub read, not the one the call claims. The doom
// loop check's question (Repeated) is no permission: its refusal is no
// decision, so none is counted.
func (a Approve) Answer(_ context.Context, q Question) Reply {
	r := Reply{Decision: Reject(q.Request), By: ByApprove, Reason: "--approve " + string(a)}
	readOnly := []adapters.ToolKind{adapters.KindRead, adapters.KindSearch, adapters.KindFetch, adapters.KindThink}
	switch {
	case q.Request.Repeated:
		r.By, r.Decision.Reason = "", "nobody can be asked to let it continue"
	case q.Must:
		r.Reason = "refused: " + q.Why + "; nobody can answer in hub run"
	case a == ApproveAll, a == ApproveReadOnly && slices.Contains(readOnly, q.Call.Kind):
		r.Decision = Allow(q.Request)
	}
	return r
}

// Access is what the agent may do unasked: only --approve all lets its own
// sandbox decide.
func (a Approve) Access() adapters.Access {
	if a == ApproveAll {
		return adapters.AccessAgentDefault
	}
	return adapters.AccessAskFirst
}
