package acp

import (
	"context"
	"errors"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
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
	injected, busy, hooked, err := ss.steer(ctx, p.Prompt)
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
	job := s.queuePrompt(schema.PromptRequest{SessionID: p.SessionID, Prompt: p.Prompt}, hooked)
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
// mid-turn. It reports whether it did, and whether a prompt is running or
// queued (busy) and the input passed its prompt hooks (a turn it found
// ended) when it did not.
func (ss *session) steer(ctx context.Context, prompt []schema.ContentBlock) (injected, busy, hooked bool, err error) {
	busy = ss.turns.Busy()
	ss.mu.Lock()
	b, running, agent := ss.agent.Current(), ss.running && !ss.crashed, ss.rec.Agent
	ss.mu.Unlock()
	st, ok := b.(adapters.Steerer)
	if !running || !ok {
		return false, busy, false, nil
	}
	content := ss.fitContent(ss.toAdapterContent(prompt))
	// The prompt hooks judge it as they judge a prompt, before anything keeps it.
	if err = conversation.PromptHooks(ctx, ss.observer(agent), agent, content); err == nil {
		forget := ss.recordUser(prompt) // first: the agent's answer to it must follow it
		if err = st.Steer(ctx, content); err != nil {
			forget()
		}
	}
	switch {
	case errors.Is(err, adapters.ErrNoTurn):
		return false, busy, true, nil
	case err != nil: // told as a failed prompt is: a block, with the hook's reason
		return false, busy, false, ss.turnError(adapters.ErrorOf(err))
	}
	return true, busy, false, nil
}
