package acp

import (
	"context"
	"errors"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// steer serves _session/steering: input for the running turn. An agent that
// takes input mid-turn gets it at once ("injected"); else it is queued as a turn
// of its own ("startedNewTurn"), unless the client asked for it back ("promptRequired").
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
	busy := ss.turns.Busy()
	injected, judged, err := ss.steer(ctx, p.Prompt)
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
	if judged { // the hooks passed it, then its turn ended: it keeps their verdict
		ctx = adapters.Judged(ctx)
	}
	job := s.beginPrompt(ctx, schema.PromptRequest{SessionID: p.SessionID, Prompt: p.Prompt})
	s.detached.Go(func() { // its updates stream as any turn's; its answer has no request to go to
		_, after, err := job()
		if e := (*jsonrpc.Error)(nil); errors.As(err, &e) { // a blocked prompt, a failure: said instead
			ss.emit(hubLine(errorText(&adapters.ErrorInfo{Message: e.Message})))
		}
		if after != nil {
			after()
		}
	})
	return schema.SteeringResponse{Outcome: schema.SteerStartedNewTurn}, nil, nil
}

// steer hands prompt to the running turn when the agent takes input
// mid-turn. It reports whether it did, and whether the prompt hooks
// judged it when it did not (the turn ended meanwhile).
func (ss *session) steer(ctx context.Context, prompt []schema.ContentBlock) (injected, judged bool, err error) {
	ss.mu.Lock()
	b, running, agent := ss.agent.Current(), ss.running && !ss.crashed, ss.rec.Agent
	ss.mu.Unlock()
	st, ok := b.(adapters.Steerer)
	if !running || !ok {
		return false, false, nil
	}
	content := ss.fitContent(ss.toAdapterContent(prompt))
	// The prompt hooks judge it as they judge a prompt, before anything keeps it.
	hs := ss.observer(agent)
	if err = conversation.PromptHooks(ctx, hs, agent, content); err == nil {
		forget := ss.recordUser(prompt) // first: the agent's answer to it must follow it
		if err = st.Steer(ctx, content); err != nil {
			forget()
		}
	}
	switch {
	case errors.Is(err, adapters.ErrNoTurn): // judged by the prompt hooks, when it has any
		return false, hs != nil, nil
	case err != nil: // told as a failed prompt is: a block, with the hook's reason
		return false, false, ss.turnError(adapters.ErrorOf(err))
	}
	return true, false, nil
}
