package acp

import (
	"cmp"
	"context"
	"maps"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// forkSession serves session/fork: a new session holding a copy of the source's
// record. The agent continues a copy of its own session where it can fork one
// (claude --fork-session, codex thread/fork); else, or when _meta.hub.agent
// names another agent, the fork's agent is briefed on the record.
func (s *server) forkSession(_ context.Context, p schema.ForkSessionRequest) (any, func(), error) {
	if err := checkDirs(p.Cwd, p.AdditionalDirectories); err != nil {
		return nil, nil, err
	}
	if live, err := s.lookup(p.SessionID); err == nil {
		live.save() // what it has so far, unsaved turns included
	}
	src, err := s.index.Load(p.SessionID)
	if err != nil {
		return nil, nil, err
	}
	if src == nil {
		return nil, nil, errUnknownSession(p.SessionID)
	}
	rec := &Record{SessionID: "hub_" + newID(12), Agent: src.Agent, Cwd: p.Cwd, AddDirs: p.AdditionalDirectories, Title: src.Title,
		Model: src.Model, Mode: src.Mode, Options: maps.Clone(src.Options), Handover: src.Handover, ForkOf: src.AgentSessionID,
		UpdatedAt: s.opts.Now()}
	if src.Unbriefed {
		rec.ForkOf = "" // its agent session holds none of the conversation: the fork's agent is briefed
	} else {
		rec.Since = src.Since // what its agent session has not heard yet, the copy has not either
	}
	if other := p.Meta.Hub.Agent; other != "" && other != src.Agent {
		set, err := s.settingsFor(p.Cwd) // the agents there: a persona of that project
		if err != nil {
			return nil, nil, err
		}
		if !cmp.Or(set.Registry, s.opts.Registry).Has(other) {
			return nil, nil, invalidParams("unknown agent %q", other)
		}
		rec.Agent, rec.ForkOf, rec.Since, rec.Model, rec.Mode, rec.Options = other, "", 0, "", "", nil
	}
	rec.History = src.History // a copy of its own
	ss, err := s.open(rec, p.McpServers)
	if err != nil {
		return nil, nil, err
	}
	if err := ss.save(); err != nil { // the copy is the fork's own from now on
		return nil, nil, jsonrpc.NewError(schema.CodeInternalError, "fork not saved: "+err.Error(), nil)
	}
	return schema.ForkSessionResponse{SessionID: rec.SessionID, Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, ss.opened, nil
}
