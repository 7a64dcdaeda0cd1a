package acp

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/personas"
)

func (ss *session) caps() adapters.Capabilities {
	a, err := ss.adapter()
	if err != nil {
		return adapters.Capabilities{}
	}
	return a.Capabilities()
}

func current(v, def string, opts []adapters.Option) string {
	for _, c := range []string{v, def} {
		if slices.ContainsFunc(opts, func(o adapters.Option) bool { return o.ID == c }) {
			return c
		}
	}
	if len(opts) > 0 {
		return opts[0].ID
	}
	return ""
}

func selectValues(opts []adapters.Option) []schema.SessionConfigSelectOption {
	out := make([]schema.SessionConfigSelectOption, 0, len(opts))
	for _, o := range opts {
		name := cmp.Or(o.Name, o.ID)
		out = append(out, schema.SessionConfigSelectOption{Value: o.ID, Name: name, Description: o.Description})
	}
	return out
}

// configOptions is the complete option list: agent, then what the running
// agent reported it offers (its live surface), else the adapter's static
// model and mode lists.
func (ss *session) configOptions() (out []schema.SessionConfigOption) {
	c := ss.caps()
	ss.mu.Lock()
	rec := *ss.rec
	rec.Options = maps.Clone(ss.rec.Options)
	live := ss.live
	ss.mu.Unlock()
	agents := ss.srv.agentChoices(ss.agents(), rec.Agent)
	out = []schema.SessionConfigOption{{ID: "agent", Name: "Agent", Description: "Which coding agent hub drives", Type: "select", CurrentValue: rec.Agent, Options: agents}}
	defer func() { // hub's own, last
		out = append(out, handoverOption(rec.Handover))
		if ss.srv.delegationAvailable() {
			out = append(out, delegationOption(ss.srv.delegationOn(rec.Delegation)))
		}
	}()
	if live != nil && len(live.Options) > 0 {
		for _, o := range live.Options {
			out = append(out, liveOption(o, chosen(&rec, o)))
		}
		return out
	}
	if len(c.Models) > 0 {
		out = append(out, schema.SessionConfigOption{ID: "model", Name: "Model", Category: "model", Type: "select", CurrentValue: current(rec.Model, c.DefaultModel, c.Models), Options: selectValues(c.Models)})
	}
	if len(c.Modes) > 0 {
		out = append(out, schema.SessionConfigOption{ID: "mode", Name: "Mode", Category: "mode", Type: "select", CurrentValue: current(rec.Mode, c.DefaultMode, c.Modes), Options: selectValues(c.Modes)})
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

// handoverOption is hub's own option: what an agent switched to learns.
func handoverOption(v string) schema.SessionConfigOption {
	return schema.SessionConfigOption{ID: optionHandover, Name: "Handover", Type: "select",
		Description:  "What an agent you switch to is told of the conversation so far",
		CurrentValue: cmp.Or(v, handoverBrief), Options: []schema.SessionConfigSelectOption{
			{Value: handoverBrief, Name: "Brief it", Description: "hub's record: requests, answers, files changed, plan"},
			{Value: handoverNone, Name: "Start it blank"}}}
}

// chosen is the value the user picked for o in this session, if the option
// still takes it, else the agent's own.
func chosen(rec *Record, o adapters.ConfigOption) string {
	var v string
	switch o.ID {
	case adapters.OptionModel:
		v = rec.Model
	case adapters.OptionMode:
		v = rec.Mode
	default:
		v = rec.Options[o.ID]
	}
	if v != "" && o.Accepts(v) {
		return v
	}
	return o.Value
}

func liveOption(o adapters.ConfigOption, value string) schema.SessionConfigOption {
	out := schema.SessionConfigOption{ID: o.ID, Name: cmp.Or(o.Name, o.ID), Description: o.Description, Category: o.Category}
	if o.Boolean {
		out.Type, out.BoolValue = "boolean", value == "true"
		return out
	}
	out.Type, out.CurrentValue, out.Options = "select", value, selectValues(o.Choices)
	return out
}

// modes is the session's mode choices and current mode: the live ones
// when the agent reported them, else the adapter's static list.
func (ss *session) modes() ([]adapters.Option, string) {
	ss.mu.Lock()
	live, mode := ss.live, ss.rec.Mode
	ss.mu.Unlock()
	if live != nil && len(live.Options) > 0 {
		o, ok := live.Find(adapters.OptionMode)
		if !ok || o.Boolean {
			return nil, ""
		}
		if mode == "" || !o.Accepts(mode) {
			mode = o.Value
		}
		return o.Choices, mode
	}
	c := ss.caps()
	if len(c.Modes) == 0 {
		return nil, ""
	}
	return c.Modes, current(mode, c.DefaultMode, c.Modes)
}

func (ss *session) modeState() *schema.SessionModeState {
	modes, cur := ss.modes()
	if len(modes) == 0 {
		return nil
	}
	st := &schema.SessionModeState{CurrentModeID: cur}
	for _, m := range modes {
		st.AvailableModes = append(st.AvailableModes, schema.SessionMode{ID: m.ID, Name: m.Name, Description: m.Description})
	}
	return st
}

// setOption applies a config option between (or, for model/mode on
// configurable sessions, during) turns. after, when not nil, sends the
// updates that follow the change; it runs once the response is written.
func (ss *session) setOption(ctx context.Context, id, value string) (after func(), err error) {
	if id == "agent" {
		a, err := ss.agents().Get(value)
		if err != nil {
			return nil, invalidParams("unknown agent %q", value)
		}
		if err := adapters.Ready(a); errors.Is(err, personas.ErrUntrusted) {
			return nil, invalidParams("%v", err)
		}
		return ss.switchAgent(value)
	}
	if id == optionHandover {
		if value != handoverBrief && value != handoverNone {
			return nil, invalidParams("unknown handover %q (brief or none)", value)
		}
		ss.mu.Lock()
		ss.rec.Handover = value
		ss.mu.Unlock()
		ss.save()
		return nil, nil
	}
	if id == optionDelegation {
		return nil, ss.setDelegation(ctx, value)
	}
	accepts, known := ss.optionAccepts(id)
	switch {
	case !known:
		return nil, invalidParams("unknown config option %q", id)
	case !accepts(value):
		return nil, invalidParams("unknown %s %q", id, value)
	case id == adapters.OptionModel:
		return nil, ss.apply(ctx, func(r *Record) { r.Model = value })
	case id == adapters.OptionMode:
		return nil, ss.apply(ctx, func(r *Record) { r.Mode = value })
	}
	return nil, ss.apply(ctx, func(r *Record) {
		if r.Options == nil {
			r.Options = map[string]string{}
		}
		r.Options[id] = value
	})
}

// optionAccepts returns the validator of option id: from the agent's live
// surface when it reported one, else the adapter's static lists.
func (ss *session) optionAccepts(id string) (func(string) bool, bool) {
	ss.mu.Lock()
	live := ss.live
	ss.mu.Unlock()
	if live != nil && len(live.Options) > 0 {
		o, ok := live.Find(id)
		return o.Accepts, ok
	}
	c := ss.caps()
	var opts []adapters.Option
	switch id {
	case adapters.OptionModel:
		opts = c.Models
	case adapters.OptionMode:
		opts = c.Modes
	}
	return func(v string) bool {
		return slices.ContainsFunc(opts, func(o adapters.Option) bool { return o.ID == v })
	}, len(opts) > 0
}

// switchAgent warms the new agent at once, then closes the old one. The old
// agent's slash commands and options no longer apply: after replaces the
// editor's command list with the skills alone.
func (ss *session) switchAgent(name string) (after func(), err error) {
	ss.mu.Lock()
	if ss.running {
		ss.mu.Unlock()
		return nil, invalidParams("cannot switch agent during a prompt; cancel it first")
	}
	if ss.rec.Agent == name {
		ss.mu.Unlock()
		return nil, nil
	}
	if ss.switchLocked(name, ss.warm) {
		return func() { ss.sendCommands(true) }, nil
	}
	return nil, nil
}

// switchLocked makes name the session's agent: start (a warm start, not made
// to wait for the old agent's exit; nil: the next prompt's) runs, then the old
// agent is closed, its session id kept to resume on a switch back; the new one
// resumes its own session if it had one. It reports whether the old agent had
// slash commands to take back. Called with ss.mu held; returns with it released.
func (ss *session) switchLocked(name string, start func()) (hadCommands bool) {
	b := ss.agent.Sleep()
	ss.live = nil
	ss.noteAgentSessionID(b)
	if ss.rec.Left == nil {
		ss.rec.Left = map[string]AgentMark{}
	}
	if ss.rec.AgentSessionID != "" {
		ss.rec.Left[ss.rec.Agent] = AgentMark{SessionID: ss.rec.AgentSessionID, Seen: ss.dropped + len(ss.rec.History)}
	}
	back := ss.rec.Left[name]
	delete(ss.rec.Left, name)
	ss.rec.Agent, ss.rec.AgentSessionID, ss.rec.Model, ss.rec.Mode, ss.rec.Options = name, back.SessionID, "", "", nil
	ss.since = back.Seen // the new agent has seen the history up to here
	hadCommands = len(ss.agentCommands) > 0
	ss.agentCommands = nil
	ss.mu.Unlock()
	if start != nil {
		start()
	}
	if b != nil {
		_ = b.Close()
	}
	ss.save()
	return hadCommands
}

// apply changes a setting: the running agent is brought to the setup that
// follows, live where it can, else by restarting it (resuming its session)
// once no turn runs. A start in flight picks the change up when it is done
// (conversation.Agent.Apply).
func (ss *session) apply(ctx context.Context, set func(*Record)) error {
	restart, err := ss.agent.Apply(ctx, func() (conversation.Setup, bool) {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		next := *ss.rec
		next.Options = maps.Clone(next.Options)
		set(&next)
		return ss.setupOf(&next), ss.running
	}, func() { ss.mu.Lock(); set(ss.rec); ss.mu.Unlock() })
	switch {
	case errors.Is(err, adapters.ErrNeedsRestart):
		return invalidParams("%v", errNotConfigurable)
	case err != nil:
		return jsonrpc.NewError(schema.CodeInternalError, err.Error(), nil)
	}
	ss.save()
	if restart {
		ss.warm()
	}
	return nil
}
