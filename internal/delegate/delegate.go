// Package delegate runs turns on hub's agents for another agent: what
// `hub mcp` serves as the delegate and continue tools. Each delegate turn
// goes through hub's own adapters; its permission requests are answered by
// hub's rules and an --approve policy, its sessions are kept for follow-ups
// and closed with the delegator, so no process outlives it.
package delegate

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
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/runner"
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
	Approve runner.Approve
	Rules   config.PermissionsConfig
	// Cwd is the default working directory (default: the process's).
	Cwd string
	// Timeout bounds a turn that names none (default 10 minutes).
	Timeout time.Duration
	Log     zerolog.Logger
	// Chain are the agents this delegator works for, the root first; a
	// delegation to one of them is a loop and refused.
	Chain []string
	// Ask, when set, answers the delegates' permission requests instead of
	// the rules and Approve: hub acp puts them to the editor.
	// session is the delegate session the request comes from.
	Ask func(ctx context.Context, session, agent string, p *adapters.PermissionRequest) adapters.PermissionDecision
	// Observe, when set, gets every event of every delegate turn, with the
	// delegate session it belongs to.
	Observe func(session, agent string, ev adapters.Event)
	// MCPServers, when set, gives a delegate of agent the MCP servers it
	// may use (hub's own, to delegate further when depth allows).
	MCPServers func(agent string) []adapters.MCPServer
	// Hooks observe the delegates' streams as they observe any CLI
	// agent's (the native loop runs them itself); nil: none.
	Hooks *hooks.Runner
}

// Request is one delegate turn.
type Request struct {
	Agent, Prompt, Cwd, Model, Mode string
	Timeout                         time.Duration
}

// ToolCall is one tool call of a delegate turn, as it ended.
type ToolCall struct {
	Title  string `json:"title"`
	Kind   string `json:"kind,omitempty"`
	Status string `json:"status,omitempty"`
}

// Result is what a delegate turn produced.
type Result struct {
	Agent string `json:"agent"`
	// Session continues this delegate conversation (the continue tool).
	Session        string          `json:"session"`
	AgentSessionID string          `json:"agentSessionId,omitempty"`
	StopReason     string          `json:"stopReason"`
	Answer         string          `json:"answer"`
	ToolCalls      []ToolCall      `json:"toolCalls"`
	FilesChanged   []string        `json:"filesChanged"`
	Usage          *adapters.Usage `json:"usage,omitempty"`
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
	rules *permission.Service
	hooks *hooks.Observer // nil unless hooks observe this delegate
	busy  bool
	turn  *turn // the running turn, for its permission decisions
	stop  context.CancelFunc
	tmu   sync.Mutex
}

// New returns a delegator; Close ends every session it started.
func New(o Options) *Delegator {
	o.Approve = cmp.Or(o.Approve, runner.ApproveReadOnly)
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

// Delegate starts a session on r.Agent and runs r.Prompt as its first turn.
func (d *Delegator) Delegate(ctx context.Context, r Request, progress Progress) (Result, error) {
	if slices.Contains(d.o.Chain, r.Agent) {
		return Result{}, fmt.Errorf("%w: %s is already working in this chain (%s); pick another agent", ErrLoop, r.Agent, strings.Join(d.o.Chain, " → "))
	}
	a, err := d.o.Registry.Get(r.Agent)
	if err != nil {
		return Result{}, fmt.Errorf("%w (see the agents tool)", err)
	}
	if err := adapters.Ready(a); err != nil {
		return Result{}, err
	}
	rules, err := permission.New(d.o.Rules)
	if err != nil {
		return Result{}, err
	}
	l := &live{agent: r.Agent, cwd: cmp.Or(r.Cwd, d.o.Cwd), rules: rules}
	if !a.Capabilities().Hooks {
		l.hooks = d.o.Hooks.Observe(hooks.Input{Cwd: l.cwd, Agent: r.Agent})
	}
	so := adapters.SessionOptions{Cwd: l.cwd, Model: r.Model, Mode: r.Mode, Access: d.o.Approve.Access(),
		Permission: l.permission(d.o), CancelGrace: 2 * time.Second}
	if d.o.Ask != nil {
		so.Access = adapters.AccessAskFirst // every side effect reaches whoever answers
	}
	if d.o.MCPServers != nil {
		so.MCPServers = d.o.MCPServers(r.Agent)
	}
	sess, err := a.Start(ctx, so)
	if err != nil {
		l.hooks.Close()
		return Result{}, fmt.Errorf("start %s: %w", r.Agent, err)
	}
	l.sess = sess
	id, err := d.keep(l)
	if err != nil {
		l.close()
		return Result{}, err
	}
	return d.run(ctx, id, l, r.Prompt, r.Timeout, progress)
}

// Continue runs a follow-up turn on a delegate session.
func (d *Delegator) Continue(ctx context.Context, session, prompt string, timeout time.Duration, progress Progress) (Result, error) {
	d.mu.Lock()
	l, ok := d.sessions[session]
	d.mu.Unlock()
	if !ok {
		return Result{}, fmt.Errorf("%w %q", ErrUnknownSession, session)
	}
	return d.run(ctx, session, l, prompt, timeout, progress)
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

func (d *Delegator) run(ctx context.Context, id string, l *live, prompt string, timeout time.Duration, progress Progress) (Result, error) {
	l.tmu.Lock()
	if l.busy {
		l.tmu.Unlock()
		return Result{}, ErrBusy
	}
	t := &turn{res: Result{Agent: l.agent, Session: id, ToolCalls: []ToolCall{}, FilesChanged: []string{}}, progress: progress}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(timeout, d.o.Timeout))
	defer cancel()
	l.busy, l.turn, l.stop = true, t, cancel
	l.tmu.Unlock()
	defer func() {
		l.tmu.Lock()
		l.busy, l.turn, l.stop = false, nil, nil
		l.tmu.Unlock()
	}()
	handle := t.handle
	if obs := d.o.Observe; obs != nil {
		handle = func(ev adapters.Event) {
			t.handle(ev)
			obs(id, l.agent, ev)
		}
	}
	content := adapters.TextPrompt(prompt)
	var stop adapters.StopReason
	var err error
	if gate := l.hooks.Prompt(ctx, l.agent, content); gate.Decision == hooks.Deny {
		stop, err = adapters.StopEndTurn, hooks.Blocked(gate)
	} else {
		stop, err = l.sess.Prompt(ctx, content, l.hooks.Wrap(handle))
	}
	l.hooks.EndTurn(stop)
	t.res.Warnings = l.hooks.Flush(ctx)
	t.res.StopReason = string(stop)
	t.res.AgentSessionID = cmp.Or(t.res.AgentSessionID, l.sess.ID())
	t.res.Answer = t.answer()
	var failed *adapters.TurnError
	switch {
	case errors.As(err, &failed):
		t.res.Error = failed.Info.Message
	case ctx.Err() != nil && err != nil:
		t.res.Error = fmt.Sprintf("the delegate turn ended early: %v", ctx.Err())
	case err != nil:
		return t.res, fmt.Errorf("%s: %w", l.agent, err)
	}
	return t.res, nil
}

// close ends the delegate's session and the hooks observing it.
func (l *live) close() {
	_ = l.sess.Close()
	l.hooks.Close()
}

// permission answers the delegate's requests: through o.Ask when set,
// else by the rules, then the approval policy.
func (l *live) permission(o Options) adapters.PermissionFunc {
	return func(ctx context.Context, p *adapters.PermissionRequest) adapters.PermissionDecision {
		var dec adapters.PermissionDecision
		reason := "the user rejected it"
		if o.Ask != nil {
			dec = o.Ask(ctx, l.id, l.agent, p)
		} else {
			dec, reason = runner.Decide(l.rules, o.Approve, l.cwd, p)
		}
		l.tmu.Lock()
		t := l.turn
		l.tmu.Unlock()
		if t != nil && !dec.Allowed() {
			t.res.Denied = append(t.res.Denied, fmt.Sprintf("%s: %s", p.Tool.Title, reason))
		}
		return dec
	}
}

// turn collects one delegate turn's result from its events.
type turn struct {
	res      Result
	progress Progress
	final    strings.Builder // text since the last tool call
	last     string          // the last non-empty final segment
	byID     map[string]int  // tool call id -> index in res.ToolCalls
}

func (t *turn) handle(ev adapters.Event) {
	switch ev.Type {
	case adapters.EventText:
		t.final.WriteString(ev.Text)
	case adapters.EventToolCall, adapters.EventToolUpdate:
		t.tool(ev)
	case adapters.EventSessionInfo:
		if ev.Session != nil && ev.Session.AgentSessionID != "" {
			t.res.AgentSessionID = ev.Session.AgentSessionID
		}
	case adapters.EventUsage:
		t.res.Usage = ev.Usage
	case adapters.EventError:
		if ev.Error != nil && ev.Error.Fatal {
			t.res.Error = ev.Error.Message
		}
	}
}

func (t *turn) tool(ev adapters.Event) {
	if ev.Tool == nil {
		return
	}
	if t.byID == nil {
		t.byID = map[string]int{}
	}
	tc := ev.Tool
	i, ok := t.byID[tc.ID]
	if !ok && ev.Type == adapters.EventToolCall {
		if seg := strings.TrimSpace(t.final.String()); seg != "" {
			t.last = seg
		}
		t.final.Reset()
		t.res.ToolCalls = append(t.res.ToolCalls, ToolCall{Title: cmp.Or(tc.Title, tc.Name, tc.ID), Kind: string(tc.Kind), Status: string(tc.Status)})
		i, ok = len(t.res.ToolCalls)-1, true
		t.byID[tc.ID] = i
		t.say("%s: %s", t.res.Agent, t.res.ToolCalls[i].Title)
	}
	if !ok {
		return
	}
	if tc.Status != "" {
		t.res.ToolCalls[i].Status = string(tc.Status)
		if tc.Status == adapters.StatusCompleted || tc.Status == adapters.StatusFailed {
			t.say("%s: %s %s", t.res.Agent, t.res.ToolCalls[i].Title, tc.Status)
		}
	}
	if tc.Kind.ChangesFiles() {
		for _, l := range tc.Locations {
			t.file(l.Path)
		}
	}
}

func (t *turn) file(path string) {
	for _, f := range t.res.FilesChanged {
		if f == path {
			return
		}
	}
	t.res.FilesChanged = append(t.res.FilesChanged, path)
}

func (t *turn) say(format string, args ...any) {
	if t.progress != nil {
		t.progress(fmt.Sprintf(format, args...))
	}
}

// answer is the final answer: the text after the last tool call, else the
// last text before it.
func (t *turn) answer() string {
	if s := strings.TrimSpace(t.final.String()); s != "" {
		return s
	}
	return t.last
}
