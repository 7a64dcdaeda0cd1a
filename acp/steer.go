package acp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// steer serves _session/steering: input for the turn that runs now. An
// agent that takes input mid-turn gets it at once ("injected"); otherwise
// it runs as the next turn of its own, queued like a prompt sent while the
// agent works ("startedNewTurn"), unless the client asked to get it back
// ("promptRequired"), to send it as a session/prompt of its own.
func (s *server) steer(ctx context.Context, p schema.SteeringRequest) (any, func(), error) {
	if len(p.Prompt) == 0 {
		return nil, nil, invalidParams("steering needs a non-empty prompt")
	}
	if promptSize(p.Prompt) > s.opts.MaxPrompt {
		return nil, nil, s.promptRefusal()
	}
	ss, err := s.lookup(p.SessionID)
	if err != nil {
		return nil, nil, err
	}
	injected, busy, err := ss.steer(ctx, p.Prompt)
	switch {
	case err != nil:
		return nil, nil, err
	case injected:
		return schema.SteeringResponse{Outcome: schema.SteerInjected}, nil, nil
	case p.Meta.Steering.IdleBehavior == schema.SteerIdleBehavior && !busy:
		return schema.SteeringResponse{Outcome: schema.SteerPromptRequired, Reason: "noRunningTurn"}, nil, nil
	case p.Meta.Steering.IdleBehavior == schema.SteerIdleBehavior:
		return schema.SteeringResponse{Outcome: schema.SteerPromptRequired, Reason: "steeringUnsupported"}, nil, nil
	}
	job := s.beginPrompt(ctx, schema.PromptRequest{SessionID: p.SessionID, Prompt: p.Prompt})
	s.detached.Go(func() { // its updates stream as any turn's; its answer has no one to go to
		if _, after, _ := job(); after != nil {
			after()
		}
	})
	return schema.SteeringResponse{Outcome: schema.SteerStartedNewTurn}, nil, nil
}

// steer hands prompt to the running turn when the agent takes input
// mid-turn. It reports whether it did, and whether a prompt is running or
// queued (busy) when it did not.
func (ss *session) steer(ctx context.Context, prompt []schema.ContentBlock) (injected, busy bool, err error) {
	busy = ss.turns.Busy()
	ss.mu.Lock()
	b, running := ss.agent.Current(), ss.running && !ss.crashed
	ss.mu.Unlock()
	st, ok := b.(adapters.Steerer)
	if !running || !ok {
		return false, busy, nil
	}
	content, agent := ss.fitContent(ss.toAdapterContent(prompt)), ss.agentName()
	// The prompt hooks hub runs for the agent see it first, as a prompt;
	// then it is recorded: the agent's answer to it must follow it.
	if gate := ss.observer(agent).Prompt(ctx, agent, content); gate.Decision == hooks.Deny {
		err = hooks.Blocked(gate)
	} else {
		undo := ss.recordSteered(prompt)
		if err = st.Steer(ctx, content); err != nil {
			undo()
		}
	}
	switch {
	case errors.Is(err, adapters.ErrNoTurn):
		return false, busy, nil
	case err != nil:
		return false, busy, jsonrpc.NewError(schema.CodeInternalError, "steering failed: "+err.Error(), map[string]any{"agent": agent})
	}
	return true, busy, nil
}

// recordSteered keeps steered input in the history, after the updates
// the editor has seen, as a user message of its own. undo takes it back
// (the agent did not take it) while nothing followed it and it is not
// saved yet: it then runs as a prompt, which records it again.
func (ss *session) recordSteered(prompt []schema.ContentBlock) (undo func()) {
	ss.emitMu.Lock()
	defer ss.emitMu.Unlock()
	id := fmt.Sprintf("steered-%d", time.Now().UnixNano())
	ss.mu.Lock()
	at := len(ss.rec.History)
	ss.mu.Unlock()
	for _, blk := range prompt {
		ss.record(schema.SessionUpdate{UserMessageChunk: &schema.ContentChunk{Content: blk, MessageID: id}})
	}
	return func() {
		ss.emitMu.Lock()
		defer ss.emitMu.Unlock()
		ss.mu.Lock()
		defer ss.mu.Unlock()
		h := ss.rec.History
		if at < ss.persisted || at > len(h) || slices.ContainsFunc(h[at:], func(u schema.SessionUpdate) bool {
			return u.UserMessageChunk == nil || u.UserMessageChunk.MessageID != id
		}) {
			return
		}
		ss.rec.History = h[:at]
		ss.chunkOpen = false
	}
}
