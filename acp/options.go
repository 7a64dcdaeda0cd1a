package acp

import (
	"cmp"
	"context"
	"slices"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
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
		name := o.Name
		name = cmp.Or(name, o.ID)
		out = append(out, schema.SessionConfigSelectOption{Value: o.ID, Name: name, Description: o.Description})
	}
	return out
}

// configOptions is the complete option list: agent, then model and mode
// when the current adapter has them.
func (ss *session) configOptions() []schema.SessionConfigOption {
	c := ss.caps()
	ss.mu.Lock()
	rec := *ss.rec
	ss.mu.Unlock()
	var agents []schema.SessionConfigSelectOption
	for _, n := range ss.srv.opts.Registry.Names() {
		agents = append(agents, schema.SessionConfigSelectOption{Value: n, Name: n})
	}
	out := []schema.SessionConfigOption{{ID: "agent", Name: "Agent", Description: "Which coding agent hub drives", Type: "select", CurrentValue: rec.Agent, Options: agents}}
	if len(c.Models) > 0 {
		out = append(out, schema.SessionConfigOption{ID: "model", Name: "Model", Category: "model", Type: "select", CurrentValue: current(rec.Model, c.DefaultModel, c.Models), Options: selectValues(c.Models)})
	}
	if len(c.Modes) > 0 {
		out = append(out, schema.SessionConfigOption{ID: "mode", Name: "Mode", Category: "mode", Type: "select", CurrentValue: current(rec.Mode, c.DefaultMode, c.Modes), Options: selectValues(c.Modes)})
	}
	return out
}

func (ss *session) modeState() *schema.SessionModeState {
	c := ss.caps()
	if len(c.Modes) == 0 {
		return nil
	}
	ss.mu.Lock()
	mode := ss.rec.Mode
	ss.mu.Unlock()
	st := &schema.SessionModeState{CurrentModeID: current(mode, c.DefaultMode, c.Modes)}
	for _, m := range c.Modes {
		st.AvailableModes = append(st.AvailableModes, schema.SessionMode{ID: m.ID, Name: m.Name, Description: m.Description})
	}
	return st
}

// setOption applies a config option between (or, for model/mode on
// configurable sessions, during) turns. after, when not nil, sends the
// updates that follow the change; it runs once the response is written.
func (ss *session) setOption(ctx context.Context, id, value string) (after func(), err error) {
	c := ss.caps()
	has := func(opts []adapters.Option) bool {
		return slices.ContainsFunc(opts, func(o adapters.Option) bool { return o.ID == value })
	}
	switch {
	case id == "agent":
		if _, err := ss.srv.opts.Registry.Get(value); err != nil {
			return nil, invalidParams("unknown agent %q", value)
		}
		return ss.switchAgent(value)
	case id == "model" && has(c.Models):
		return nil, ss.apply(ctx, value, func(r *Record) { r.Model = value }, adapters.Configurable.SetModel)
	case id == "mode" && has(c.Modes):
		return nil, ss.apply(ctx, value, func(r *Record) { r.Mode = value }, adapters.Configurable.SetMode)
	case id == "model" || id == "mode":
		return nil, invalidParams("unknown %s %q", id, value)
	}
	return nil, invalidParams("unknown config option %q", id)
}

// switchAgent starts a fresh adapter session on the next prompt. The old
// agent's slash commands no longer apply: after replaces the editor's list
// with the skills alone.
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
	b := ss.backend
	ss.backend = nil
	ss.rec.Agent, ss.rec.AgentSessionID, ss.rec.Model, ss.rec.Mode = name, "", "", ""
	hadCommands := len(ss.agentCommands) > 0
	ss.agentCommands = nil
	ss.mu.Unlock()
	if b != nil {
		_ = b.Close()
	}
	ss.save()
	if hadCommands {
		after = func() { ss.sendCommands(true) }
	}
	return after, nil
}

func (ss *session) apply(ctx context.Context, value string, set func(*Record), live func(adapters.Configurable, context.Context, string) error) error {
	ss.cfgMu.Lock()
	defer ss.cfgMu.Unlock()
	ss.mu.Lock()
	b := ss.backend
	busy := ss.running
	ss.mu.Unlock()
	if b != nil {
		if cfg, ok := b.(adapters.Configurable); ok {
			if err := live(cfg, ctx, value); err != nil {
				return jsonrpc.NewError(schema.CodeInternalError, err.Error(), nil)
			}
		} else if busy {
			return invalidParams("%v", errNotConfigurable)
		} else {
			// Restart on the next prompt, resuming the agent's session.
			ss.mu.Lock()
			ss.backend = nil
			ss.mu.Unlock()
			_ = b.Close()
		}
	}
	ss.mu.Lock()
	set(ss.rec)
	ss.mu.Unlock()
	ss.save()
	return nil
}
