package acp

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/delegation"
	"github.com/hubdev/hub/personas"
)

// Delegation: the session's agent gets hub as an MCP server (`hub mcp`) whose
// delegate tool reaches back through a private socket to run another agent in
// this process, so the delegates' permission requests and tool calls show in
// the session, and a cancelled turn or a closed session ends them.

const (
	optionDelegation = "delegation"
	delegationOn     = "on"
	delegationOff    = "off"
)

// delegationOn says the agent of a session whose record's Delegation is v
// gets hub's delegate tool.
func (s *server) delegationOn(v string) bool {
	return s.opts.Self != "" && (v == delegationOn || (v == "" && s.opts.Delegation))
}

// bridge opens the server's delegation socket on first use, and again if
// a tmp cleaner removed it since: the `hub mcp` child of the agent about to
// start checks it once (one already running asks for it when it must).
func (s *server) bridge() (*delegation.Bridge, error) {
	s.bridgeMu.Lock()
	defer s.bridgeMu.Unlock()
	if s.bridgeErr == nil && s.delegBridge == nil {
		s.delegBridge, s.bridgeErr = delegation.Listen(s.log)
	} else if s.delegBridge != nil {
		if err := s.delegBridge.Reopen(); err != nil {
			return nil, err
		}
	}
	return s.delegBridge, s.bridgeErr
}

// reopenBridge makes the opened delegation socket again if a tmp cleaner removed
// it: a `hub mcp` child started since has no connection to ask for it on.
func (s *server) reopenBridge() {
	s.bridgeMu.Lock()
	defer s.bridgeMu.Unlock()
	if s.delegBridge == nil {
		return
	}
	if err := s.delegBridge.Reopen(); err != nil {
		s.log.Warn().Err(err).Msg("delegation socket")
	}
}

func (s *server) closeBridge() {
	s.bridgeMu.Lock()
	b := s.delegBridge
	s.delegBridge, s.bridgeErr = nil, errors.New("server closed")
	s.bridgeMu.Unlock()
	if b != nil {
		b.Close()
	}
}

// delegationHost is one of the session's delegation hosts: the one its
// agent calls (root), or one of a delegate allowed to delegate further.
type delegationHost struct {
	d     *delegation.Delegator
	close func() // unregisters and closes d
	root  bool
}

// delegationEntry registers a delegation host for the agents in chain, as they
// run (the root first; the last calls it), and returns the MCP server entry that
// reaches it, none without a socket.
func (ss *session) delegationEntry(chain []adapters.Adapter) []adapters.MCPServer {
	b, err := ss.srv.bridge()
	if err != nil {
		ss.srv.log.Warn().Err(err).Str("session", ss.id()).Msg("delegation off: no socket")
		return nil
	}
	var token string
	ss.addDelegator(chain, func(d *delegation.Delegator) (unregister func()) {
		token, unregister = b.Register(d)
		return unregister
	})
	return []adapters.MCPServer{{Name: "hub", Type: "stdio", Command: ss.srv.opts.Self, Args: []string{"mcp"}, Env: b.Env(token)}}
}

// delegateFunc is the built-in delegate tool of agent a (the native loop):
// the root delegator, called in this process.
func (ss *session) delegateFunc(a adapters.Adapter) (adapters.DelegateFunc, []string) {
	d := ss.addDelegator([]adapters.Adapter{a}, func(*delegation.Delegator) func() { return func() {} })
	return delegation.Func(d), delegation.AgentNames(d, []string{a.Name()})
}

// addDelegator makes the delegator for the agents in chain and keeps it
// with the session; register serves it to the agent that calls it. A root
// delegator replaces the one before: that agent was restarted.
func (ss *session) addDelegator(chain []adapters.Adapter, register func(*delegation.Delegator) func()) *delegation.Delegator {
	d := delegation.New(delegation.Options{Registry: ss.agents(), Cwd: ss.rec.Cwd, Rules: ss.set.Permissions, Grants: ss.srv.opts.Grants,
		Log: ss.srv.log, Chain: chain, Ask: ss.delegatePermission, Observe: ss.showDelegate, Hooks: ss.set.Hooks, AuditDir: ss.srv.opts.TranscriptDir,
		Fallback: ss.srv.opts.Fallback, ProviderTimeout: ss.srv.opts.ProviderTimeout, MCPServers: ss.delegateServers(chain),
		Records: delegation.RecordsIn(ss.srv.opts.StateDir)})
	unregister := register(d)
	h := &delegationHost{d: d, close: func() { unregister(); d.Close() }, root: len(chain) == 1}
	ss.mu.Lock()
	var old *delegationHost
	if i := slices.IndexFunc(ss.delegs, func(x *delegationHost) bool { return x.root }); h.root && i >= 0 {
		old, ss.delegs = ss.delegs[i], slices.Delete(ss.delegs, i, i+1)
	}
	ss.delegs = append(ss.delegs, h)
	ss.mu.Unlock()
	if old != nil {
		old.close()
	}
	return d
}

// delegateServers gives a, a delegate of chain's last agent as it runs, hub's
// server to delegate further while the depth allows, only when a takes stdio
// servers and may delegate: for any other it would stay registered, unused.
func (ss *session) delegateServers(chain []adapters.Adapter) func(a adapters.Adapter) []adapters.MCPServer {
	return func(a adapters.Adapter) []adapters.MCPServer {
		if !a.Capabilities().MCP || !personas.MayDelegate(a) || len(chain) >= cmp.Or(ss.srv.opts.DelegationDepth, 1) {
			return nil
		}
		return ss.delegationEntry(append(slices.Clone(chain), a))
	}
}

// endDelegates cancels every running delegate turn (the root turn was
// cancelled), or with closing ends every delegate (the session closed).
func (ss *session) endDelegates(closing bool) {
	ss.mu.Lock()
	hosts := slices.Clone(ss.delegs)
	if closing {
		ss.delegs = nil
	}
	ss.mu.Unlock()
	for _, h := range hosts {
		if closing {
			h.close()
		} else {
			h.d.CancelTurns()
		}
	}
}

// delegatePermission puts what a delegate's rules leave open to the editor
// as a call of this session, named for the delegate; its "always" answers
// hold for that delegate only (its gate's).
func (ss *session) delegatePermission(ctx context.Context, session, agent string, q conversation.Question) conversation.Reply {
	p := q.Request
	q.Request = adapters.NewPermissionRequest(*delegateTool(session, agent, p.Tool, true), p.Options)
	return ss.askEditor(ctx, q, true)
}

// showDelegate shows a delegate's tool calls in the session, each titled
// with the delegate's name; its text is the delegate tool's result.
func (ss *session) showDelegate(session, agent string, ev adapters.Event) {
	switch {
	case ev.Type == adapters.EventDecision && ev.Decision != nil:
		c := *ev.Decision
		c.Title = agent + ": " + c.Title
		ev.Decision = &c
	case (ev.Type == adapters.EventToolCall || ev.Type == adapters.EventToolUpdate) && ev.Tool != nil && ev.Tool.ID != "":
		ev.Tool = delegateTool(session, agent, *ev.Tool, ev.Type == adapters.EventToolCall)
	default:
		return
	}
	ss.forward(ev)
}

// delegateTool is a delegate's tool call as the session shows it: an id of
// its own, and the delegate's name before the title.
func delegateTool(session, agent string, t adapters.ToolCall, full bool) *adapters.ToolCall {
	t.ID = "delegate/" + session + "/" + t.ID
	if full || t.Title != "" {
		t.Title = agent + ": " + conversation.ToolTitle(t)
	}
	return &t
}
