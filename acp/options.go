package acp

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/personas"
)

// surface is what the session's agent offers, each option's Value the
// session's choice: what the running agent reported (its live surface),
// else the adapter's static model and mode lists.
func (ss *session) surface() adapters.Surface {
	var c adapters.Capabilities
	if a, err := ss.agents().Get(ss.agentName()); err == nil {
		c = a.Capabilities()
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var s adapters.Surface
	if ss.live != nil && len(ss.live.Options) > 0 {
		s.Options = slices.Clone(ss.live.Options)
	} else {
		for _, o := range []adapters.ConfigOption{
			{ID: adapters.OptionModel, Name: "Model", Category: "model", Value: c.DefaultModel, Choices: c.Models},
			{ID: adapters.OptionMode, Name: "Mode", Category: "mode", Value: c.DefaultMode, Choices: c.Modes}} {
			if len(o.Choices) == 0 {
				continue
			}
			if !o.Accepts(o.Value) {
				o.Value = o.Choices[0].ID
			}
			s.Options = append(s.Options, o)
		}
	}
	for i, o := range s.Options {
		s.Options[i].Value = chosen(ss.rec, o)
	}
	return s
}

// configOptions is the complete option list: agent, then what the agent
// offers (surface), then hub's own.
func (ss *session) configOptions() []schema.SessionConfigOption {
	sur := ss.surface()
	ss.mu.Lock()
	agent, handover, deleg := ss.rec.Agent, ss.rec.Handover, ss.rec.Delegation
	ss.mu.Unlock()
	out := []schema.SessionConfigOption{{ID: "agent", Name: "Agent", Description: "Which coding agent hub drives", Type: "select", CurrentValue: agent,
		Options: ss.srv.agentChoices(ss.agents(), agent)}}
	for _, o := range append(sur.Options, ss.srv.hubOptions(handover, deleg)...) {
		out = append(out, configOption(o))
	}
	return out
}

// Handover option values: brief an agent that takes the session over on
// the conversation so far, or start it blank.
const (
	optionHandover = "handover"
	handoverBrief  = "brief"
	handoverNone   = "none"
)

// hubOptions are hub's own options for a record's Handover and Delegation
// (delegation only where hub can hand its agents an MCP server of its own).
func (s *server) hubOptions(handover, deleg string) []adapters.ConfigOption {
	out := []adapters.ConfigOption{{ID: optionHandover, Name: "Handover", Description: "What an agent you switch to is told of the conversation so far",
		Value: cmp.Or(handover, handoverBrief), Choices: []adapters.Option{
			{ID: handoverBrief, Name: "Brief it", Description: "hub's record: requests, answers, files changed, plan"},
			{ID: handoverNone, Name: "Start it blank"}}}}
	if s.opts.Self == "" {
		return out
	}
	on := delegationOff
	if s.delegationOn(deleg) {
		on = delegationOn
	}
	return append(out, adapters.ConfigOption{ID: optionDelegation, Name: "Delegation", Value: on,
		Description: "Let the agent hand subtasks to other agents through hub", Choices: []adapters.Option{
			{ID: delegationOn, Name: "On", Description: "the agent gets hub's delegate tool; delegates ask you before side effects"},
			{ID: delegationOff, Name: "Off"}}})
}

// chosen is the value the user picked for o in this session, if the option
// still takes it, else the agent's own.
func chosen(rec *Record, o adapters.ConfigOption) string {
	v := rec.Options[o.ID]
	if f := rec.fields()[o.ID]; f != nil {
		v = *f
	}
	if v != "" && o.Accepts(v) {
		return v
	}
	return o.Value
}

// configOption is an option the agent offers, with its Value current.
func configOption(o adapters.ConfigOption) schema.SessionConfigOption {
	out := schema.SessionConfigOption{ID: o.ID, Name: cmp.Or(o.Name, o.ID), Description: o.Description, Category: o.Category}
	if o.Boolean {
		out.Type, out.BoolValue = "boolean", o.Value == "true"
		return out
	}
	out.Type, out.CurrentValue = "select", o.Value
	for _, c := range o.Choices {
		out.Options = append(out.Options, schema.SessionConfigSelectOption{Value: c.ID, Name: cmp.Or(c.Name, c.ID), Description: c.Description})
	}
	return out
}

func (ss *session) modeState() *schema.SessionModeState {
	o, ok := ss.surface().Find(adapters.OptionMode)
	if !ok || o.Boolean || len(o.Choices) == 0 {
		return nil
	}
	st := &schema.SessionModeState{CurrentModeID: o.Value}
	for _, m := range o.Choices {
		st.AvailableModes = append(st.AvailableModes, schema.SessionMode{ID: m.ID, Name: m.Name, Description: m.Description})
	}
	return st
}

// setOption applies a config option between (or, for model/mode on
// configurable sessions, during) turns. after, when not nil, sends the
// updates that follow the change; it runs once the response is written.
func (ss *session) setOption(ctx context.Context, id, value string) (after func(), err error) {
	switch {
	case id == "agent":
		a, err := ss.agents().Get(value)
		if err != nil {
			return nil, invalidParams("unknown agent %q", value)
		}
		if err := adapters.Ready(a); errors.Is(err, personas.ErrUntrusted) {
			return nil, invalidParams("%v", err)
		}
		return ss.switchAgent(value)
	case id == optionDelegation && ss.srv.opts.Self == "":
		return nil, invalidParams("delegation is not available here")
	}
	o, known := adapters.Surface{Options: append(ss.srv.hubOptions("", ""), ss.surface().Options...)}.Find(id)
	switch {
	case !known:
		return nil, invalidParams("unknown config option %q", id)
	case !o.Accepts(value):
		return nil, invalidParams("unknown %s %q", id, value)
	}
	return nil, ss.apply(ctx, func(r *Record) { // a delegation change restarts the agent, resuming its session
		if f := r.fields()[id]; f != nil {
			*f = value
			return
		}
		if r.Options == nil {
			r.Options = map[string]string{}
		}
		r.Options[id] = value
	})
}

// fields are the options r keeps in fields of their own; the others are
// in Options.
func (r *Record) fields() map[string]*string {
	return map[string]*string{adapters.OptionModel: &r.Model, adapters.OptionMode: &r.Mode, optionHandover: &r.Handover, optionDelegation: &r.Delegation}
}

// switchAgent warms the new agent at once, then closes the old one. The old
// agent's slash commands and options no longer apply: after replaces the
// editor's command list with the skills alone.
func (ss *session) switchAgent(name string) (after func(), err error) {
	ss.mu.Lock()
	switch {
	case ss.running:
		ss.mu.Unlock()
		return nil, invalidParams("cannot switch agent during a prompt; cancel it first")
	case ss.rec.Agent == name:
		ss.mu.Unlock()
	case ss.switchLocked(name, "", ss.agent.LaunchWarm):
		return func() { ss.sendCommands(true) }, nil
	}
	return nil, nil
}

// switchLocked makes name the session's agent: start (a warm start, not made
// to wait for the old agent's exit; nil: the next prompt's) runs, then the old
// agent is closed, its session id kept to resume on a switch back; the new one
// resumes its own session if it had one. It reports whether the old agent had
// slash commands to take back. The new agent runs as persona ("": itself).
// Called with ss.mu held; returns with it released.
func (ss *session) switchLocked(name, persona string, start func()) (hadCommands bool) {
	b := ss.agent.Switch()
	ss.live = nil
	ss.noteAgentSessionID(b)
	if ss.rec.Left == nil {
		ss.rec.Left = map[string]AgentMark{}
	}
	// Until its briefing reached it, the agent has seen what it had before:
	// nothing, when that was a fresh start's (its session is no use).
	if ss.rec.AgentSessionID != "" && !ss.rec.Unbriefed {
		ss.rec.Left[ss.rec.Agent] = AgentMark{SessionID: ss.rec.AgentSessionID, Seen: cmp.Or(ss.rec.Since, ss.dropped+len(ss.rec.History))}
	}
	back := ss.rec.Left[name]
	if back.Seen == 0 { // it left before the first turn: its session holds none of it (Since 0 would read as all)
		back = AgentMark{}
	}
	delete(ss.rec.Left, name)
	ss.rec.Agent, ss.rec.Persona, ss.rec.AgentSessionID, ss.rec.Model, ss.rec.Mode, ss.rec.Options = name, persona, back.SessionID, "", "", nil
	ss.rec.Since, ss.rec.Unbriefed, ss.plan = back.Seen, false, conversation.StartPlan{} // the new agent has seen the history up to here
	hadCommands = len(ss.agentCommands) > 0
	ss.agentCommands = nil
	ss.mu.Unlock()
	if start != nil {
		start()
	}
	if b != nil {
		_ = b.Close()
	}
	_ = ss.save() // logged
	return hadCommands
}

// apply changes a setting: the running agent takes the new setup live where
// it can, else is restarted (resuming its session) once no turn runs; a
// start in flight picks it up when done (conversation.Agent.Apply).
func (ss *session) apply(ctx context.Context, set func(*Record)) error {
	restart, err := ss.agent.Apply(ctx, func() (conversation.Setup, bool) {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		next := ss.rec.clone()
		set(&next)
		return ss.setupOf(&next), ss.running
	}, func() { ss.mu.Lock(); set(ss.rec); ss.mu.Unlock() })
	switch {
	case errors.Is(err, adapters.ErrNeedsRestart):
		return invalidParams("agent cannot change this while the session runs")
	case err != nil:
		return jsonrpc.NewError(schema.CodeInternalError, err.Error(), nil)
	}
	_ = ss.save() // logged
	if restart {
		ss.agent.LaunchWarm()
	}
	return nil
}
